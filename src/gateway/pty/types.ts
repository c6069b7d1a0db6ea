// The PTY layer's public shapes: what a caller asks to spawn, what it is told about a
// session, and how a session ended. The session, its end and why are wire shapes, defined once in protocol/.
import type { ExitInfo } from '../../protocol/pty.js';

export type { ExitInfo, ExitReason, PtyInfo } from '../../protocol/pty.js';

/** What to run in a new pseudo-terminal. */
export interface SpawnSpec {
  /** Program to run; default: `$SHELL`, else `/bin/sh`. A bare name is looked up on PATH. */
  command?: string;
  args?: string[];
  /**
   * The command line `PtyInfo` reports instead of the one run: a sandboxed agent's own, not the
   * bwrap wrapper around it, which names every hidden folder and can outgrow a WebSocket frame.
   */
  shown?: string[];
  /** The Gatehouse session the PTY runs (a session started from the dashboard), reported in `PtyInfo`. */
  gatehouseSession?: string;
  /** Working folder; must resolve (symlinks followed) inside the project root. */
  cwd: string;
  /** Merged over the server's environment (and over `TERM=xterm-256color`). */
  env?: Record<string, string>;
  /** Names removed from that environment after the merge: secrets a sandboxed agent must not inherit. */
  unsetEnv?: string[];
  /** Default 24. */
  rows?: number;
  /** Default 80. */
  cols?: number;
}

/** The server-held screen of one session, for a late or reconnecting viewer. */
export interface PtySnapshot {
  /** Escape sequences that rebuild the screen and its bounded scrollback when written to a terminal. */
  data: string;
  /** Seq of the last output chunk included; every chunk with a larger seq comes after it. */
  seq: number;
  cols: number;
  rows: number;
  /**
   * Output bytes the screen skipped under floods since the session started. Non-zero
   * means the replay is rebuilt from the recent output only: state set by the skipped
   * bytes (colours, modes, a full-screen app's frame) may be missing until redrawn.
   */
  skipped_bytes: number;
}

/** Something to stop listening to. */
export interface Disposable {
  dispose(): void;
}

/** How one `PtyManager` is bounded. */
export interface PtyManagerOptions {
  /** Spawn `cwd` must resolve inside this folder's real path. */
  projectRoot: string;
  /** Live sessions at once; default 64. */
  maxSessions?: number;
  /** A session without output, input or resize for this long is closed; default 10 minutes. */
  idleTtlMs?: number;
  /** Lines of history the server-held screen keeps per session; default 1000. */
  scrollbackLines?: number;
  /** Clock in epoch milliseconds; injected by tests. */
  now?: () => number;
  /** How often the idle sweep runs; default 30 s. */
  sweepIntervalMs?: number;
}

/** Receives each output chunk; `seq` starts at 1 and grows by 1 per chunk, per session. */
export type OutputListener = (id: string, seq: number, data: Buffer) => void;

/** Receives a session's end, once, after its last output chunk. */
export type ExitListener = (id: string, info: ExitInfo) => void;
