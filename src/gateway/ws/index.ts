// The `/ws` endpoint's public names: attach it to a server, its options and hooks, the
// error table, the flow-control contract and the event registry clients decode against.
export { attachWebSocket, AUTH_TIMEOUT_MS, HEARTBEAT_MS } from './endpoint.js';
export type { AttachOptions, WebSocketEndpoint, WebSocketOptions } from './endpoint.js';
export type { PtyHost, SessionLaunch, SessionRequest, SpawnParams, WebSocketHooks } from './pty-host.js';
export { CLOSE_CODES, NO_SUCH_SESSION, RPC_ERRORS } from './errors.js';
export type { RpcErrorName, RpcErrorObject } from './errors.js';
export { FlowControlConstants } from './flow-control.js';
export { EVENT_TOPICS, parseWireEvent, TOPIC_NAMESPACES, TOPICS } from './events.js';
export type { EventData, Topic, WireEvent } from './events.js';
export { MAX_FRAME_BYTES, MAX_PAYLOAD_BYTES, OUTPUT_CHUNK_BYTES } from './frames.js';
export { MAX_INPUT_BYTES } from './pty-methods.js';
export { HARD_BACKLOG_BYTES, VIEWER_BACKLOG_BYTES } from './outbox.js';
export { WS_PATH } from './upgrade.js';
export type { Capability } from '../credentials.js';
