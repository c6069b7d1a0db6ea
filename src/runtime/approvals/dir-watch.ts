// Notices changes in a few folders from any process: fs.watch for speed, plus a poll
// that still works where fs.watch is missing or silent (network mounts, inotify limits).
import { watch, type FSWatcher } from 'node:fs';

/** How {@link watchDirs} looks for changes. */
export interface DirWatchOptions {
  /** Poll period; the poll is the guarantee, fs.watch only makes it faster. */
  pollMs: number;
  /** Use fs.watch as well as polling (off only to test the fallback). */
  fsWatch: boolean;
}

/** A running watch; `close` stops every watcher and timer it owns. */
export interface DirWatch {
  close(): void;
}

/**
 * Calls `onTick` soon after any entry in `dirs` is created, renamed or removed, and every
 * `pollMs` regardless; callers compare what they see with what they saw. Bursts of
 * fs.watch events (a temp write, a link, an unlink) are folded into one tick.
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
  if (opts.fsWatch) {
    for (const dir of dirs) {
      try {
        // Not persistent: the poll timer (or the caller) decides how long the process lives.
        const w = watch(dir, { persistent: false }, soon);
        // A watcher that fails (folder removed, limits) is dropped; polling carries on.
        w.on('error', () => w.close());
        watchers.push(w);
      } catch {
        // fs.watch unsupported here (ENOSPC, ENOSYS, network mount): polling only.
      }
    }
  }
  const poll = setInterval(tick, opts.pollMs);
  return {
    close(): void {
      if (closed) return;
      closed = true;
      clearInterval(poll);
      if (queued !== null) clearImmediate(queued);
      for (const w of watchers) w.close();
    },
  };
}
