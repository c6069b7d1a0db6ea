// Who is waiting on a request: a waiter id and a heartbeat file the waiter touches while it
// waits, so the sweeper can tell a live wait from a dead one even when the pid says nothing.
import { randomBytes } from 'node:crypto';
import { closeSync, constants, lstatSync, lutimesSync, mkdirSync, openSync, readdirSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { errCode, unlinkQuiet, type ApprovalPaths } from './files.js';
import { WAITER_ID_RE } from './record.js';

/**
 * How often a waiter touches its heartbeat file. One `utimes` every few seconds costs
 * nothing, and it bounds how long a dead wait holds a request open (see WAITER_STALE_MS).
 */
const WAITER_HEARTBEAT_MS = 5_000;
/**
 * A heartbeat older than this means the waiter is gone: six missed beats, so a loaded
 * machine or a long synchronous stretch in the waiting thread is never mistaken for death.
 */
export const WAITER_STALE_MS = 30_000;

const WAITER_ID_BYTES = 8;
const HEARTBEAT_MODE = 0o600;

/** A fresh waiter id. */
export function newWaiterId(): string {
  return `w-${randomBytes(WAITER_ID_BYTES).toString('hex')}`;
}

function heartbeatFile(paths: ApprovalPaths, waiter: string): string {
  // Checked by every caller's record parse too; a bug here must not name a path elsewhere.
  if (!WAITER_ID_RE.test(waiter)) throw new Error(`not a waiter id: ${JSON.stringify(waiter)}`);
  return join(paths.waiters, waiter);
}

/**
 * Creates (or refreshes) the heartbeat of `waiter`: done before its request is filed, so a
 * filed request always has one. Links are never followed: the name is touched, not a target.
 */
export function beat(paths: ApprovalPaths, waiter: string): void {
  const file = heartbeatFile(paths, waiter);
  const now = new Date();
  try {
    lutimesSync(file, now, now);
  } catch (err) {
    if (errCode(err) !== 'ENOENT') throw err;
    mkdirSync(paths.waiters, { recursive: true, mode: 0o700 });
    closeSync(openSync(file, constants.O_CREAT | constants.O_WRONLY | constants.O_NOFOLLOW, HEARTBEAT_MODE));
  }
}

/**
 * The file a wait by `waiter` watches for its answer: its heartbeat, which whoever writes the
 * answer touches ({@link ring}). A watch on the answers' folder would wake every waiting hook for
 * every answer written into it.
 */
export function doorbellFile(paths: ApprovalPaths, waiter: string): string {
  return heartbeatFile(paths, waiter);
}

/**
 * Tells the wait of `waiter` that its answer is on file, by changing its heartbeat's access time
 * (the {@link doorbellFile} it watches sees any change of the file's times). The modification
 * time, which is the heartbeat itself, stays as the waiter left it: an answer never makes a dead
 * wait look alive. Never creates the file and never follows a link; if it fails, the wait's own
 * poll finds the answer (within a second).
 */
export function ring(paths: ApprovalPaths, waiter: string): void {
  try {
    const file = heartbeatFile(paths, waiter);
    lutimesSync(file, new Date(), lstatSync(file).mtime);
  } catch {
    // Gone (the wait ended), or not ours to touch: the poll is the guarantee.
  }
}

/**
 * Keeps `waiter`'s heartbeat fresh until the returned function is called, which also
 * removes it. A failed beat is skipped: the next one may work, and a wait that cannot
 * beat at all is swept as dead, which denies the call (never allows it).
 */
export function keepBeating(paths: ApprovalPaths, waiter: string): () => void {
  const timer = setInterval(() => {
    try {
      beat(paths, waiter);
    } catch {
      // See above: a stale heartbeat fails closed.
    }
  }, WAITER_HEARTBEAT_MS);
  // The wait itself keeps the process alive; the heartbeat must not.
  timer.unref();
  return () => {
    clearInterval(timer);
    try {
      unlinkQuiet(heartbeatFile(paths, waiter));
    } catch {
      // The sweeper ignores heartbeats of answered requests; a leftover file is harmless.
    }
  };
}

/**
 * Why `waiter` looks dead at `nowMs` (real clock: file times are on it), or null while its
 * heartbeat is fresh.
 */
export function deadWaiterReason(paths: ApprovalPaths, waiter: string, nowMs: number): string | null {
  let mtimeMs: number;
  try {
    mtimeMs = lstatSync(heartbeatFile(paths, waiter)).mtimeMs;
  } catch (err) {
    if (errCode(err) === 'ENOENT') return `its waiter (${waiter}) left no heartbeat, so nobody is waiting for an answer`;
    throw err;
  }
  const age = nowMs - mtimeMs;
  if (age <= WAITER_STALE_MS) return null;
  return `its waiter (${waiter}) stopped its heartbeat ${Math.round(age / 1000)} s ago, so nobody is waiting for an answer`;
}

/** Removes heartbeats that stopped (their requests are denied by then); returns how many. */
export function removeDeadHeartbeats(paths: ApprovalPaths, nowMs: number): number {
  let names: string[];
  try {
    names = readdirSync(paths.waiters);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    if (!WAITER_ID_RE.test(name)) continue;
    const file = join(paths.waiters, name);
    try {
      if (nowMs - lstatSync(file).mtimeMs <= WAITER_STALE_MS) continue;
      unlinkSync(file);
      removed++;
    } catch {
      // Removed by its waiter meanwhile.
    }
  }
  return removed;
}
