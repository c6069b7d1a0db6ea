// The PTY layer's public face: one PtyManager per server, its option defaults and bounds,
// and the shapes the WebSocket layer puts on the wire.
export { DEFAULT_IDLE_TTL_MS, DEFAULT_MAX_SESSIONS, NO_SUCH_SESSION, PtyManager } from './pty-manager.js';
export { DEFAULT_COLS, DEFAULT_ROWS, DEFAULT_TERM, MAX_GEOMETRY } from './launch.js';
export { DEFAULT_SCROLLBACK_LINES } from './screen.js';
export type {
  Disposable,
  ExitInfo,
  ExitListener,
  ExitReason,
  OutputListener,
  PtyInfo,
  PtyManagerOptions,
  PtySnapshot,
  SpawnSpec,
} from './types.js';
