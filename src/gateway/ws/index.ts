// The `/ws` endpoint's public names: attach it to a server, its options and hooks, the
// error table, the flow-control contract and the event registry clients decode against.
export { attachWebSocket, AUTH_TIMEOUT_MS } from './endpoint.js';
export type { WebSocketEndpoint } from './endpoint.js';
export type { PtyHost, SpawnParams, WebSocketHooks } from './pty-host.js';
export { CLOSE_CODES, NO_SUCH_SESSION, RPC_ERRORS } from './errors.js';
export type { RpcErrorObject } from './errors.js';
export { FlowControlConstants } from './flow-control.js';
export { parseWireEvent } from './events.js';
export type { WireEvent } from './events.js';
export { MAX_FRAME_BYTES, MAX_PAYLOAD_BYTES, OUTPUT_CHUNK_BYTES } from './frames.js';
export { VIEWER_BACKLOG_BYTES } from './outbox.js';
