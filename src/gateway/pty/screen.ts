// The server-held screen of one session: a headless xterm with bounded scrollback that
// parses every output chunk, so a late viewer gets the current screen, not the byte history.
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
 * A headless terminal plus serializer. Writes are parsed asynchronously, in order;
 * each write's callback runs once that chunk is on the screen.
 */
export class Screen {
  private readonly term: HeadlessTerminal;
  private readonly serializer = new SerializeAddon();
  private pending = 0;
  private disposed = false;

  /** A blank screen of the given size keeping `scrollback` lines of history. */
  constructor(cols: number, rows: number, scrollback: number) {
    // The serialize addon reads the buffer through xterm's proposed API.
    this.term = new Terminal({ cols, rows, scrollback, allowProposedApi: true, logLevel: 'off' });
    // The addon is typed against @xterm/xterm's Terminal; the headless one has the same buffer API.
    this.term.loadAddon(this.serializer as unknown as Addon);
  }

  /** Bytes written but not yet parsed: what the session holds for the screen right now. */
  get pendingBytes(): number {
    return this.pending;
  }

  /** Queues a chunk; `parsed` runs once it is on the screen, after every earlier chunk's. */
  write(chunk: Buffer, parsed: () => void): void {
    this.pending += chunk.length;
    this.term.write(chunk, () => {
      this.pending -= chunk.length;
      parsed();
    });
  }

  /** Runs `then` after every chunk written so far has been parsed. */
  afterPending(then: () => void): void {
    this.term.write('', then);
  }

  /** Resizes in order with the output: chunks written before this are laid out at the old size. */
  resize(cols: number, rows: number): void {
    this.afterPending(() => {
      if (!this.disposed) this.term.resize(cols, rows);
    });
  }

  /** Escape sequences that rebuild the parsed screen and its scrollback. */
  serialize(): { data: string; cols: number; rows: number } {
    return { data: this.serializer.serialize(), cols: this.term.cols, rows: this.term.rows };
  }

  /** Frees the terminal; deferred because it may be called from inside a write callback, mid-parse. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    setImmediate(() => this.term.dispose());
  }
}
