// The wire contract between the gateway and its clients (the dashboard, tests): schemas,
// types, codes and constants, and the JSON-RPC peer. No Node imports, nothing of the server:
// the browser uses it too.
export { AlwaysTarget, PendingApproval, PendingList } from './approvals.js';
export { decodeBinaryOutput } from './binary-output.js';
export { CLOSE_CODES } from './close-codes.js';
export { EVENT_SCHEMAS, parseWireEvent, TOPICS, type WireEvent } from './events.js';
export { FlowControlConstants } from './flow-control.js';
export { AttachResult, ExitInfo, PtyInfo, PtyList, SpawnParams } from './pty.js';
export { RpcErrorShape } from './rpc-error-schema.js';
