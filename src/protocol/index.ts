// The wire contract between the gateway and its clients (the dashboard, tests): schemas,
// types, codes and constants, and the JSON-RPC peer. No Node imports, nothing of the server:
// the browser uses it too.
export { AlwaysTarget, PendingApproval, PendingList } from './approvals.js';
export { CLOSE_CODES, type CloseCodeName } from './close-codes.js';
export { EVENT_SCHEMAS, isTopic, parseWireEvent, TOPIC_NAMESPACES, TOPICS, topicsOf, type EventData, type Topic, type WireEvent } from './events.js';
export { FlowControlConstants } from './flow-control.js';
export { JsonRpcPeer, NO_ERROR_CODE, type JsonRpcPeerOptions, type RequestHandler, type RequestOptions } from './json-rpc-peer.js';
export { EXIT_REASONS, PTY_STATES } from './pty-states.js';
export { AttachResult, ExitInfo, ExitReason, PtyInfo, PtyList, SpawnParams, SpawnSession } from './pty.js';
export { RpcErrorShape } from './rpc-error-schema.js';
export { isRpcErrorName, JsonRpcError, RPC_ERROR_NAMES, RPC_ERRORS, type JsonRpcErrorObject, type RpcErrorName, type RpcErrorObject } from './rpc-errors.js';
