// The native inotify binding (native/inotify.c, built into dist/native by
// scripts/build-native.mjs), its event bits, and this process's share of the user's watches.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** The two calls of native/inotify.c. Negative results are -errno. */
export interface Inotify {
  init(): number;
  add(fd: number, path: Buffer, mask: number): number;
}

// inotify(7) event bits, and the errno a refused watch gives for "no more watches".
export const MODIFY = 0x2;
export const ATTRIB = 0x4;
export const CLOSE_WRITE = 0x8;
export const CLOSE_NOWRITE = 0x10;
export const OPEN = 0x20;
export const MOVED_FROM = 0x40;
export const MOVED_TO = 0x80;
export const CREATE = 0x100;
export const DELETE = 0x200;
export const DELETE_SELF = 0x400;
export const MOVE_SELF = 0x800;
export const Q_OVERFLOW = 0x4000;
export const IGNORED = 0x8000;
export const DONT_FOLLOW = 0x02000000;
export const ISDIR = 0x40000000;
export const ENOSPC = 28;
/** The native module at `path`, or null where it cannot be loaded (not built, not Linux). */
export function loadInotify(path: string): Inotify | null {
  try {
    const m = createRequire(path)(path) as Partial<Inotify>;
    return typeof m.init === 'function' && typeof m.add === 'function' ? (m as Inotify) : null;
  } catch {
    return null;
  }
}

/** Watches this process holds over all its worktree watches. */
let watchesHeld = 0;
let watchBudget: number | null = null;

/** The most watches this process takes: half the user's limit, so that editors and the agent's own watchers keep theirs. */
function budget(): number {
  if (watchBudget !== null) return watchBudget;
  try {
    watchBudget = Math.floor(Number.parseInt(readFileSync('/proc/sys/fs/inotify/max_user_watches', 'latin1'), 10) / 2) || 0;
  } catch {
    watchBudget = 0;
  }
  return watchBudget;
}

/** Counts one more watch held; false when that is past this process's share (see {@link budget}). */
export function takeWatch(): boolean {
  return ++watchesHeld <= budget();
}

/** Gives back `n` watches counted by {@link takeWatch}. */
export function giveBackWatches(n: number): void {
  watchesHeld -= n;
}
