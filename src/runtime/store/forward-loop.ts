// Runs one forwarding pass at a time, again every poll interval and at once on flush(); while
// the store is down it backs off and says so once per outage, never throwing into its host.
import { isConnectionError } from './pg-connect.js';

/** Options of {@link ForwardLoop}. */
export interface ForwardLoopOptions {
  /** What one pass does (`flush`: asked for by flush(), not the timer); it throws when the store cannot be reached. */
  pass: (flush: boolean) => Promise<void>;
  warn: (message: string) => void;
  /** Names the part in warnings, e.g. "sessions and evidence". */
  what: string;
  /** The store's label for warnings. */
  label: string;
  /** Time between passes while all is well. */
  pollMs: number;
}

/** The first wait after a failed pass; it doubles up to {@link RETRY_MAX_MS}. */
const RETRY_FIRST_MS = 1_000;
/** The longest wait between attempts while the store is down: long enough not to hammer it, short enough to catch up soon after. */
const RETRY_MAX_MS = 30_000;

/**
 * A poll loop with backoff. Passes never overlap: a flush during a pass waits for it, then runs its own.
 * @example const loop = new ForwardLoop({ pass, warn, what: 'sessions', label, pollMs: 2_000 }); loop.start(); await loop.flush()
 */
export class ForwardLoop {
  readonly #opts: ForwardLoopOptions;
  #chain: Promise<void> = Promise.resolve();
  #timer: ReturnType<typeof setTimeout> | null = null;
  #stopped = false;
  #failures = 0;

  constructor(opts: ForwardLoopOptions) {
    this.#opts = opts;
  }

  /** Runs the first pass now and keeps polling. */
  start(): void {
    this.#schedule(0);
  }

  /** Runs a pass now (after any in progress); rejects when it fails. */
  flush(): Promise<void> {
    return this.#run(true);
  }

  /** Stops polling and waits for a pass in progress. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    await this.#chain.catch(() => {});
  }

  #run(flush: boolean): Promise<void> {
    const next = this.#chain.catch(() => {}).then(() => this.#once(flush));
    this.#chain = next;
    return next;
  }

  async #once(flush: boolean): Promise<void> {
    try {
      await this.#opts.pass(flush);
    } catch (err) {
      if (this.#failures === 0) this.#opts.warn(this.#failureLine(err));
      this.#failures++;
      throw err;
    }
    if (this.#failures > 0) this.#opts.warn(`the team store ${this.#opts.label} answers again: ${this.#opts.what} caught up`);
    this.#failures = 0;
  }

  #failureLine(err: unknown): string {
    const why = err instanceof Error ? err.message : String(err);
    if (isConnectionError(err)) return `the team store ${this.#opts.label} cannot be reached (${why}): ${this.#opts.what} stay in this machine's state folder and are forwarded when it answers again`;
    return `forwarding ${this.#opts.what} to ${this.#opts.label} failed (${why}); retrying`;
  }

  #schedule(ms: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#run(false).then(
        () => this.#schedule(this.#opts.pollMs),
        () => this.#schedule(Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** Math.min(this.#failures - 1, 16))),
      );
    }, ms);
    // A poll must never keep a finished `gatehouse run` alive.
    this.#timer.unref();
  }
}
