// The server-held screen of one session: a headless xterm with bounded scrollback that a
// late viewer is caught up from. It parses behind the live stream, on a CPU budget; under
// a flood it waits for a pause and skips ahead to the recent output instead of slowing
// the agent down.
import xtermHeadless from '@xterm/headless';
import { SerializeAddon } from '@xterm/addon-serialize';

// @xterm/headless 6 is a CommonJS bundle without an `exports` map: Node's ESM loader
// exposes only its default export, so named imports fail at run time (xterm.js #5448).
const { Terminal } = xtermHeadless;
type HeadlessTerminal = InstanceType<typeof Terminal>;
type Addon = Parameters<HeadlessTerminal['loadAddon']>[0];

/** Lines of history kept when the caller does not say: a few screens of an agent's output. */
export const DEFAULT_SCROLLBACK_LINES = 1000;

/**
 * Unparsed bytes past which the oldest are skipped. xterm parses 10–30 MB/s on one core
 * here, slower than a PTY can be read (~90 MB/s): a screen that had to see every byte
 * would cap the session's throughput (or, unpaused, its memory would grow without bound).
 */
export const SKIP_AT_BYTES = 2 * 1024 * 1024;
/**
 * What a skip keeps: the newest output, enough to refill the scrollback (1,000 lines of
 * 200 columns is 200 KB) several times over.
 */
const KEEP_AFTER_SKIP_BYTES = 512 * 1024;
/** Bytes handed to xterm per parse step: ~2–5 ms of parsing, so one step never stalls the event loop. */
const PARSE_STEP_BYTES = 64 * 1024;
/**
 * Idle time after each parse step, as a multiple of the step's own time: 3 keeps the
 * background parse under ~25% of the event loop, leaving the rest to the live stream.
 */
const IDLE_PER_BUSY = 3;

/**
 * A backlog this far behind means output arrives faster than the budgeted parse keeps up
 * with: a flood. Parsing then waits until the output pauses, because most of what it
 * would parse is about to be skipped anyway; the CPU goes to the live stream instead.
 */
const FLOOD_BEHIND_BYTES = 256 * 1024;
/** How long output must pause before a flooded screen starts catching up. */
const QUIET_MS = 25;

type Entry = { kind: 'data'; seq: number; data: Buffer } | { kind: 'resize'; cols: number; rows: number };

/** How far the screen has got. */
export interface ScreenProgress {
  /** Seq of the last chunk parsed (or skipped). */
  parsedSeq: number;
  /** Bytes waiting to be parsed. */
  queuedBytes: number;
  /** Bytes skipped under floods since the start: the replay is approximate if this is non-zero. */
  skippedBytes: number;
}

/**
 * A headless terminal plus serializer fed from a bounded queue. Chunks and resizes apply
 * in order; `settled()` parses everything queued at full speed for a snapshot.
 */
export class Screen {
  private readonly term: HeadlessTerminal;
  private readonly serializer = new SerializeAddon();
  private queue: Entry[] = [];
  private queuedBytes = 0;
  private parsedSeq = 0;
  private skippedBytes = 0;
  private parsing = false;
  private timer: NodeJS.Timeout | null = null;
  private waiters: ((settled: boolean) => void)[] = [];
  private lastWriteAt = 0;
  private disposed = false;

  /** A blank screen of the given size keeping `scrollback` lines of history. */
  constructor(cols: number, rows: number, scrollback: number) {
    // The serialize addon reads the buffer through xterm's proposed API.
    this.term = new Terminal({ cols, rows, scrollback, allowProposedApi: true, logLevel: 'off' });
    // The addon is typed against @xterm/xterm's Terminal; the headless one has the same buffer API.
    this.term.loadAddon(this.serializer as unknown as Addon);
  }

  progress(): ScreenProgress {
    return { parsedSeq: this.parsedSeq, queuedBytes: this.queuedBytes, skippedBytes: this.skippedBytes };
  }

  /** Queues chunk `seq`; past {@link SKIP_AT_BYTES} of backlog the oldest queued output is skipped. */
  write(seq: number, data: Buffer): void {
    if (this.disposed) return;
    this.queue.push({ kind: 'data', seq, data });
    this.queuedBytes += data.length;
    this.lastWriteAt = performance.now();
    if (this.queuedBytes > SKIP_AT_BYTES) this.skip();
    this.schedule(0);
  }

  /** Resizes in order with the output: chunks queued before this are laid out at the old size. */
  resize(cols: number, rows: number): void {
    if (this.disposed) return;
    this.queue.push({ kind: 'resize', cols, rows });
    this.schedule(0);
  }

  /**
   * Resolves true once everything queued so far is on the screen, parsing without the
   * budget meanwhile; false if the screen was disposed first.
   */
  settled(): Promise<boolean> {
    if (this.disposed) return Promise.resolve(false);
    if (this.queue.length === 0 && !this.parsing) return Promise.resolve(true);
    return new Promise((resolve) => {
      this.waiters.push(resolve);
      this.schedule(0);
    });
  }

  /** Escape sequences that rebuild the parsed screen and its scrollback; call once settled. */
  serialize(): { data: string; cols: number; rows: number } {
    return { data: this.serializer.serialize(), cols: this.term.cols, rows: this.term.rows };
  }

  /** Frees the terminal; deferred because it may be called from inside a parse callback. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.queue = [];
    this.queuedBytes = 0;
    for (const w of this.waiters.splice(0)) w(false);
    setImmediate(() => this.term.dispose());
  }

  /**
   * Drops the oldest queued output down to {@link KEEP_AFTER_SKIP_BYTES}, starting the
   * kept part after a line break where it can, so parsing resumes at a line start rather
   * than inside an escape sequence. Resizes are kept: they still apply in order.
   */
  private skip(): void {
    const kept: Entry[] = [];
    let bytes = 0;
    let i = this.queue.length - 1;
    for (; i >= 0; i--) {
      const e = this.queue[i] as Entry;
      if (e.kind === 'data' && bytes + e.data.length > KEEP_AFTER_SKIP_BYTES) break;
      kept.push(e);
      if (e.kind === 'data') bytes += e.data.length;
    }
    for (; i >= 0; i--) {
      const e = this.queue[i] as Entry;
      if (e.kind === 'resize') kept.push(e);
      else {
        this.skippedBytes += e.data.length;
        this.parsedSeq = Math.max(this.parsedSeq, e.seq);
      }
    }
    kept.reverse();
    const first = kept.findIndex((e) => e.kind === 'data');
    const head = kept[first];
    if (head?.kind === 'data') {
      const nl = head.data.indexOf(0x0a);
      if (nl >= 0 && nl < head.data.length - 1) {
        this.skippedBytes += nl + 1;
        bytes -= nl + 1;
        kept[first] = { kind: 'data', seq: head.seq, data: head.data.subarray(nl + 1) };
      }
    }
    this.queue = kept;
    this.queuedBytes = bytes;
  }

  private schedule(delayMs: number): void {
    if (this.parsing || this.disposed || this.queue.length === 0) return;
    if (this.timer !== null) {
      if (delayMs > 0 || this.waiters.length === 0) return;
      clearTimeout(this.timer); // someone is waiting: parse now
    }
    this.timer = setTimeout(() => this.step(), this.waiters.length > 0 ? 0 : delayMs);
  }

  /** Parses up to {@link PARSE_STEP_BYTES} (applying resizes in order), then idles in proportion. */
  private step(): void {
    this.timer = null;
    if (this.disposed) return;
    if (this.waiters.length === 0 && this.queuedBytes > FLOOD_BEHIND_BYTES) {
      const quietFor = performance.now() - this.lastWriteAt;
      if (quietFor < QUIET_MS) {
        this.timer = setTimeout(() => this.step(), Math.ceil(QUIET_MS - quietFor));
        return;
      }
    }
    while (this.queue[0]?.kind === 'resize') {
      const r = this.queue.shift() as Extract<Entry, { kind: 'resize' }>;
      this.term.resize(r.cols, r.rows);
    }
    const parts: Buffer[] = [];
    let bytes = 0;
    let lastSeq = this.parsedSeq;
    while (this.queue[0]?.kind === 'data' && bytes < PARSE_STEP_BYTES) {
      const e = this.queue.shift() as Extract<Entry, { kind: 'data' }>;
      parts.push(e.data);
      bytes += e.data.length;
      lastSeq = e.seq;
    }
    if (parts.length === 0) return this.afterStep(0);
    this.parsing = true;
    const started = performance.now();
    this.term.write(parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts, bytes), () => {
      this.parsing = false;
      if (this.disposed) return;
      this.queuedBytes -= bytes;
      this.parsedSeq = Math.max(this.parsedSeq, lastSeq);
      this.afterStep(performance.now() - started);
    });
  }

  private afterStep(busyMs: number): void {
    if (this.queue.length === 0) {
      for (const w of this.waiters.splice(0)) w(true);
      return;
    }
    this.schedule(Math.ceil(busyMs * IDLE_PER_BUSY));
  }
}
