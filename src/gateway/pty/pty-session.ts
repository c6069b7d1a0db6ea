// One process in a pseudo-terminal: coalesces and numbers its output chunks, mirrors them
// on the server screen, pauses on request, escalates kills and reports exit once, after output.
import { constants as osConstants } from 'node:os';
import * as nodePty from '@lydell/node-pty';
import type { IPty } from '@lydell/node-pty';
import { fail, ok, type Result } from '../../core/result.js';
import { redactArgv } from '../../core/redact-argv.js';
import { drainOnEof } from './eof-drain.js';
import type { Launch } from './launch.js';
import { Screen } from './screen.js';
import type { ExitInfo, ExitReason, PtyInfo, PtySnapshot } from './types.js';
import { isoTime } from '../../core/iso-time.js';

/**
 * Output is sent in chunks of up to this size: a PTY hands out at most ~4 KiB per read,
 * and one message per read would multiply every consumer's per-message cost by ten under
 * a flood. 47 KiB still fits one 64 KiB WebSocket frame as base64.
 */
const COALESCE_BYTES = 47 * 1024;
/**
 * While output streams (the last chunk went out less than this long ago), reads are
 * gathered for up to this long before they are sent. The first read after a pause goes
 * out on the next turn of the event loop, so a keystroke's echo is never delayed.
 */
const STREAM_BATCH_MS = 2;
/** SIGHUP first (what closing a terminal sends); a child that ignores it gets SIGKILL after this. */
const KILL_GRACE_MS = 3_000;
/**
 * While paused, how often we look for the child having died. node-pty destroys its read
 * stream 200 ms after the child is reaped, discarding what a paused stream has not read;
 * polling well inside that window lets us resume and read the tail first.
 */
const PAUSED_EXIT_POLL_MS = 50;

const SIGNAL_NAMES = new Map<number, string>(Object.entries(osConstants.signals).map(([name, num]) => [num, name]));

/** What the owner of a session hears from it. */
export interface SessionEvents {
  output(session: PtySession, seq: number, data: Buffer): void;
  exit(session: PtySession, info: ExitInfo): void;
}

/** One PTY session; create with `PtySession.start`. */
export class PtySession {
  /** Resolves after the exit has been reported. */
  readonly exited: Promise<void>;
  lastActivity: number;
  private cols: number;
  private rows: number;
  private seq = 0;
  private exit: ExitInfo | null = null;
  private reason: ExitReason | null = null;
  private clientPaused = false;
  /** Snapshots in progress: each holds the output still while the screen catches up. */
  private holds = 0;
  private ptyPaused = false;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private flushTimer: NodeJS.Timeout | null = null;
  private flushImmediate: NodeJS.Immediate | null = null;
  private lastFlushAt = -Infinity;
  private childGone = false;
  private killTimer: NodeJS.Timeout | null = null;
  private pollTimer: NodeJS.Timeout | null = null;
  private resolveExited!: () => void;

  private constructor(
    readonly id: string,
    private readonly launch: Launch,
    private readonly pty: IPty,
    private readonly screen: Screen,
    private readonly events: SessionEvents,
    private readonly now: () => number,
    private readonly createdAt: number,
    readonly label: string | undefined,
  ) {
    this.cols = launch.cols;
    this.rows = launch.rows;
    this.lastActivity = createdAt;
    this.exited = new Promise((resolve) => (this.resolveExited = resolve));
    // Raw bytes (encoding: null): chunk edges may split UTF-8 sequences, which every xterm decodes across writes.
    pty.onData((data) => this.received(typeof data === 'string' ? Buffer.from(data) : (data as Buffer)));
    drainOnEof(pty, (chunk) => this.received(chunk));
    pty.onExit(({ exitCode, signal }) => this.ended(exitCode, signal));
  }

  /** Starts the process; a launch the kernel refuses is a value, not a throw. */
  static start(id: string, launch: Launch, scrollback: number, events: SessionEvents, now: () => number, label?: string): Result<PtySession> {
    let pty: IPty;
    try {
      pty = nodePty.spawn(launch.file, launch.args, {
        name: launch.env.TERM,
        cols: launch.cols,
        rows: launch.rows,
        cwd: launch.cwd,
        env: launch.env,
        encoding: null,
      });
    } catch (err) {
      return fail(`cannot start ${JSON.stringify(launch.command)}: ${(err as Error).message}`);
    }
    const screen = new Screen(launch.cols, launch.rows, scrollback);
    return ok(new PtySession(id, launch, pty, screen, events, now, now(), label));
  }

  /** True once the exit has been reported (after the last output chunk). */
  get isExited(): boolean {
    return this.exit !== null;
  }

  /** True once a kill was asked for or the process ended. */
  get isEnding(): boolean {
    return this.reason !== null || this.childGone || this.exit !== null;
  }

  /** A copy of what a caller may know about this session: environment and secret option values hidden. */
  info(): PtyInfo {
    const [command = this.launch.command, ...args] = redactArgv(this.launch.shown);
    const info: PtyInfo = {
      id: this.id,
      command,
      args,
      cwd: this.launch.cwd,
      pid: this.pty.pid,
      rows: this.rows,
      cols: this.cols,
      created_at: isoTime(this.createdAt),
      last_activity_at: isoTime(this.lastActivity),
      state: this.exit === null ? 'running' : 'exited',
      exit: this.exit === null ? null : { ...this.exit },
    };
    if (this.label !== undefined) info.label = this.label;
    if (this.launch.gatehouseSession !== undefined) info.gatehouse_session = this.launch.gatehouseSession;
    return info;
  }

  /** Sends input to the process (strings as UTF-8); refused once the session is ending. */
  write(data: string | Buffer): Result<void> {
    if (this.isEnding) return fail(`session ${this.id} has ended: start a new one`);
    this.lastActivity = this.now();
    // With encoding: null node-pty writes Buffers as-is; its typings only say string.
    (this.pty.write as (d: string | Buffer) => void)(data);
    return ok(undefined);
  }

  /** Resizes the PTY (the child gets SIGWINCH) and, in order with the output, the server screen. */
  resize(cols: number, rows: number): Result<void> {
    if (this.isEnding) return fail(`session ${this.id} has ended: start a new one`);
    this.lastActivity = this.now();
    this.pty.resize(cols, rows);
    this.cols = cols;
    this.rows = rows;
    this.screen.resize(cols, rows);
    return ok(undefined);
  }

  /** Hangs up the process (SIGHUP, then SIGKILL after a grace period); the first reason given sticks. */
  kill(reason: ExitReason): void {
    if (this.isEnding) return;
    this.reason = reason;
    this.signal('SIGHUP');
    this.killTimer = setTimeout(() => this.signal('SIGKILL'), KILL_GRACE_MS);
    this.killTimer.unref();
  }

  /** Flow control for the controlling client: output stops (and is kept by the kernel) until resume. */
  pause(): void {
    this.clientPaused = true;
    this.applyFlow();
  }

  /** Undoes `pause`; output still waits while a snapshot is being taken. */
  resume(): void {
    this.clientPaused = false;
    this.applyFlow();
  }

  /**
   * Holds the output still, lets the screen parse everything sent so far, and calls `use`
   * with the snapshot in the same tick, before any later chunk is sent: a caller that
   * starts forwarding output inside `use` misses nothing and repeats nothing.
   */
  async withSnapshot<T>(use: (snap: PtySnapshot) => T): Promise<Result<T>> {
    this.holds++;
    this.applyFlow();
    try {
      this.flush();
      if (!(await this.screen.settled())) return fail(`session ${this.id} was closed`);
      return ok(use({ ...this.screen.serialize(), seq: this.seq, skipped_bytes: this.screen.progress().skippedBytes }));
    } finally {
      this.holds--;
      this.applyFlow();
    }
  }

  /** Frees the server screen; only after exit, when no write is pending. */
  dispose(): void {
    this.screen.dispose();
  }

  private received(data: Buffer): void {
    if (data.length === 0) return;
    this.lastActivity = this.now();
    // Never past the size, so a chunk stays one frame (an oversized read still goes out whole).
    if (this.pendingBytes + data.length > COALESCE_BYTES) this.flush();
    this.pending.push(data);
    this.pendingBytes += data.length;
    if (this.pendingBytes >= COALESCE_BYTES) this.flush();
    else if (this.flushTimer === null && this.flushImmediate === null) {
      if (performance.now() - this.lastFlushAt < STREAM_BATCH_MS) this.flushTimer = setTimeout(() => this.flush(), STREAM_BATCH_MS);
      else this.flushImmediate = setImmediate(() => this.flush());
    }
  }

  /** Sends what has been read as one numbered chunk, to the listeners and the screen. */
  private flush(): void {
    if (this.flushTimer !== null) clearTimeout(this.flushTimer);
    if (this.flushImmediate !== null) clearImmediate(this.flushImmediate);
    this.flushTimer = null;
    this.flushImmediate = null;
    if (this.pendingBytes === 0) return;
    this.lastFlushAt = performance.now();
    const data = this.pending.length === 1 ? (this.pending[0] as Buffer) : Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    const seq = ++this.seq;
    this.screen.write(seq, data);
    this.events.output(this, seq, data);
  }

  private ended(exitCode: number, signal: number | undefined): void {
    this.childGone = true;
    this.clearTimers();
    // A closed session takes along what it left in its process group (jobs that ignore SIGHUP);
    // the group id stays reserved while any member lives, so this cannot hit a stranger.
    if (this.reason !== null) signalProcess(-this.pty.pid, 'SIGKILL');
    const name = signal ? (SIGNAL_NAMES.get(signal) ?? `signal ${signal}`) : null;
    const info: ExitInfo = {
      exit_code: name === null ? exitCode : null,
      signal: name,
      reason: this.reason ?? 'exited',
    };
    // node-pty reports exit after its stream closed (and the EOF drain ran): send the tail first.
    this.flush();
    this.exit = info;
    this.events.exit(this, info);
    this.resolveExited();
  }

  private applyFlow(): void {
    const want = (this.clientPaused || this.holds > 0) && !this.childGone;
    if (want === this.ptyPaused) return;
    this.ptyPaused = want;
    if (want) {
      this.pty.pause();
      this.pollTimer = setInterval(() => this.checkChildGone(), PAUSED_EXIT_POLL_MS);
      this.pollTimer.unref();
    } else {
      this.stopPolling();
      this.pty.resume();
    }
  }

  /** A dead child writes nothing more, so its tail is bounded: read it all before node-pty drops it. */
  private checkChildGone(): void {
    try {
      process.kill(this.pty.pid, 0);
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ESRCH') return; // EPERM: it exists
    }
    this.childGone = true;
    this.applyFlow();
  }

  private signal(sig: 'SIGHUP' | 'SIGKILL'): void {
    if (this.childGone) return;
    // The child leads its own session and process group: SIGKILL takes its jobs along.
    if (sig === 'SIGKILL') signalProcess(-this.pty.pid, sig);
    signalProcess(this.pty.pid, sig);
  }

  private stopPolling(): void {
    if (this.pollTimer !== null) clearInterval(this.pollTimer);
    this.pollTimer = null;
  }

  private clearTimers(): void {
    this.stopPolling();
    if (this.killTimer !== null) clearTimeout(this.killTimer);
    this.killTimer = null;
  }
}

/** Sends a signal to a pid (or, negative, a process group); one that is already gone is fine. */
function signalProcess(target: number, sig: 'SIGHUP' | 'SIGKILL'): void {
  try {
    process.kill(target, sig);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
  }
}
