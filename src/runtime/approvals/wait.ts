// How a hook process waits for its answer: cheaply (fs.watch, a backstop poll once a second while
// it works, one timer for the expiry), never past the expiry, releasing every watcher and timer at the end.
import { watchDirs } from './dir-watch.js';

/** Poll period where fs.watch cannot watch what the wait watches: half the 100 ms wake-up promise. */
const WAIT_POLL_MS = 50;

/** What {@link waitUntil} watches and when it must give up. */
export interface WaitOptions {
  /** Folders (or files) whose changes may mean `check` now has an answer. */
  dirs: readonly string[];
  /** The entry names in `dirs` whose changes may (default: all); as `watchDirs` takes them. */
  names?: (name: string) => boolean;
  /** When `check` itself starts answering with the expiry outcome; a timer fires then. */
  deadlineMs: number;
  /** The clock the deadline is measured on. */
  nowMs: () => number;
  fsWatch: boolean;
  signal?: AbortSignal;
  /** Names the wait in the abort error. */
  what: string;
}

/**
 * Resolves with the first non-null result of `check`, called now, on every change in
 * `dirs`, on every poll ({@link watchDirs}) and at the deadline. `check` must return non-null once the
 * deadline has passed, so the wait ends there. Rejects if `check` throws or on abort.
 * @example await waitUntil(() => readAnswerOrExpire(), { dirs: [resolved], deadlineMs, nowMs: Date.now, fsWatch: true, what: 'approval ap-1-ab' })
 */
export async function waitUntil<T>(check: () => T | null, opts: WaitOptions): Promise<T> {
  const { signal } = opts;
  const cleanups: (() => void)[] = [];
  try {
    return await new Promise<T>((resolve, reject) => {
      const tick = (): void => {
        try {
          const answer = check();
          if (answer !== null) resolve(answer);
        } catch (err) {
          reject(err instanceof Error ? err : new Error(String(err)));
        }
      };
      if (signal) {
        const onAbort = (): void => reject(signal.reason instanceof Error ? signal.reason : new Error(`waiting for ${opts.what} was aborted`));
        if (signal.aborted) return onAbort();
        signal.addEventListener('abort', onAbort, { once: true });
        cleanups.push(() => signal.removeEventListener('abort', onAbort));
      }
      const w = watchDirs(opts.dirs, tick, { pollMs: WAIT_POLL_MS, fsWatch: opts.fsWatch, ...(opts.names ? { names: opts.names } : {}) });
      cleanups.push(() => w.close());
      // The exact deadline. Should the timer fire a hair early by the clock `check` reads, it is
      // set again for what is left: the backstop poll may be a second away.
      let timer: NodeJS.Timeout;
      const atDeadline = (): void => {
        tick();
        const left = opts.deadlineMs - opts.nowMs();
        if (left > 0) timer = setTimeout(atDeadline, left);
      };
      timer = setTimeout(atDeadline, Math.max(0, opts.deadlineMs - opts.nowMs()));
      cleanups.push(() => clearTimeout(timer));
      tick();
    });
  } finally {
    for (const c of cleanups) c();
  }
}
