// Notices changes in a few folders (or files) from any process: fs.watch for speed, plus a poll
// that still works where fs.watch is missing or silent (network mounts, inotify limits).
import { watch, type FSWatcher } from 'node:fs';

/**
 * Poll period while fs.watch covers every folder: only a backstop for an event it did not
 * deliver. Each poll wakes the process, and a cold hook waiting on a person may wait for
 * minutes: at 50 ms, 100 waiting hooks took more than one core of a 2-core machine
 * (docs/PERFORMANCE.md).
 */
export const BACKSTOP_POLL_MS = 1000;

/** How {@link watchDirs} looks for changes. */
export interface DirWatchOptions {
  /** Poll period while any folder has no working fs.watch: the poll is then what notices changes. */
  pollMs: number;
  /** Poll period while fs.watch covers every folder (default {@link BACKSTOP_POLL_MS}; never shorter than `pollMs`). */
  backstopMs?: number;
  /** Use fs.watch as well as polling (off only to test the fallback). */
  fsWatch: boolean;
  /**
   * The entry names whose fs.watch events matter (default: all). A wait on a request filed
   * without a waiter watches the answers' folder for its own answer's name only.
   */
  names?: (name: string) => boolean;
}

/** A running watch; `close` stops every watcher and timer it owns. */
export interface DirWatch {
  close(): void;
  /** The poll period now in force: `pollMs` unless fs.watch covers every folder. */
  readonly pollMs: number;
}

/**
 * Calls `onTick` soon after any entry in `dirs` is created, renamed, changed or removed, and
 * on a poll regardless: every `pollMs` while some folder has no fs.watch (it could not be set up,
 * or it failed), every `backstopMs` while fs.watch covers them all. Callers compare what they
 * see with what they saw. Bursts of fs.watch events (a temp write, a link, an unlink) are
 * folded into one tick; with `names`, only the events of the entries it takes count. A file in
 * `dirs` is watched itself: a write or a touch of it counts.
 * @example const w = watchDirs([dir], () => check(), { pollMs: 50, fsWatch: true }); w.close();
 */
export function watchDirs(dirs: readonly string[], onTick: () => void, opts: DirWatchOptions): DirWatch {
  const watchers: FSWatcher[] = [];
  let closed = false;
  let queued: NodeJS.Immediate | null = null;
  const tick = (): void => {
    queued = null;
    if (!closed) onTick();
  };
  const soon = (): void => {
    if (!closed && queued === null) queued = setImmediate(tick);
  };
  let period = 0;
  let poll: NodeJS.Timeout | null = null;
  const pollEvery = (ms: number): void => {
    if (closed || ms === period) return;
    if (poll !== null) clearInterval(poll);
    period = ms;
    poll = setInterval(tick, ms);
  };
  let covered = 0;
  const { names } = opts;
  if (opts.fsWatch) {
    for (const dir of dirs) {
      try {
        // Not persistent: the poll timer (or the caller) decides how long the process lives.
        const w = watch(dir, { persistent: false }, (_event, name) => {
          // No name (not on Linux, but possible elsewhere): look, as for any change.
          if (names === undefined || typeof name !== 'string' || names(name)) soon();
        });
        // A watcher that fails (folder removed, limits) is dropped: the fast poll takes over, and looks now.
        w.on('error', () => {
          w.close();
          pollEvery(opts.pollMs);
          soon();
        });
        watchers.push(w);
        covered++;
      } catch {
        // fs.watch unsupported here (ENOSPC, ENOSYS, network mount): polling only.
      }
    }
  }
  pollEvery(covered === dirs.length && dirs.length > 0 ? Math.max(opts.pollMs, opts.backstopMs ?? BACKSTOP_POLL_MS) : opts.pollMs);
  return {
    close(): void {
      if (closed) return;
      closed = true;
      if (poll !== null) clearInterval(poll);
      if (queued !== null) clearImmediate(queued);
      for (const w of watchers) w.close();
    },
    get pollMs() {
      return period;
    },
  };
}
