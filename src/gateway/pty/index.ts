// The PTY layer's public face: one PtyManager per server, its option defaults and bounds,
// and the shapes the WebSocket layer puts on the wire.
export { NO_SUCH_SESSION, PtyManager } from './pty-manager.js';
export type { ExitInfo, PtyInfo, PtyManagerOptions } from './types.js';
