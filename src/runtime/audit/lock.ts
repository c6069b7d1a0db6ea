// A cross-process exclusive lock on one file (O_EXCL create, pid + unique token inside),
// synchronous because hooks are; a lock whose owner died is taken over with care.
//
// Races accepted, both needing a crash first: (1) a dead owner whose pid the system has
// given to a new process looks alive, so waiters time out (LOCK_TIMEOUT_MS) with an Error
// naming the file until someone deletes it; (2) a stealer stalled for more than
// STEAL_MARKER_STALE_MS between re-reading a dead owner's lock and unlinking it can
// unlink a lock a live writer just took, letting two writers in at once. Two writers can
// fork the chain (two events with one seq), which verify reports: tamper evidence holds,
// only availability suffers.
import { closeSync, openSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { isProcessAlive } from '../process-alive.js';
import { lstatOrNull, readSmallBytes } from '../small-file.js';
import { uniqueToken } from '../unique-token.js';

/** How long an append waits for the lock before giving up with an Error the caller logs. */
const LOCK_TIMEOUT_MS = 5000;
// Backoff between tries: the lock is held for well under a millisecond per append, so
// start short; cap it so a waiter never sleeps through many hand-overs in a row.
const FIRST_BACKOFF_MS = 0.2;
const MAX_BACKOFF_MS = 8;
// A lock file is written right after it is created; one still without a readable owner
// after this long belongs to a process that died between the two steps.
const UNREADABLE_LOCK_GRACE_MS = 1000;
// The steal section is one read and one unlink; a steal marker older than this was left
// by a process that died inside it.
const STEAL_MARKER_STALE_MS = 2000;

/**
 * A lock of another thread of this process held longer than this belongs to a thread that died
 * inside it (a worker ended or restarted): the sections are sub-millisecond, and waiters give up
 * at 2–5 s, so this frees the lock before they all do.
 */
const OTHER_THREAD_STALE_MS = 1500;

/** This thread's id in the locks it takes: 0 for the main thread; a worker that takes locks sets its own ({@link setLockThread}). */
let threadId = 0;

/**
 * Names the calling worker thread in the locks it takes. Set once by the gate worker; the hook
 * process (one thread) never loads `node:worker_threads` for it.
 */
export function setLockThread(id: number): void {
  threadId = id;
}

/** `pid threadId token`: a host runs hook calls in a worker thread, which shares the pid. Older locks have no thread id (the main thread's, 0). */
const OWNER = /^(\d+)(?: (\d+))? ([0-9a-f]{16})\n$/;
const sleeper = new Int32Array(new SharedArrayBuffer(4));
/** Locks this thread holds; a lock file naming our own pid and thread but not in here is a leftover. */
const held = new Set<string>();

function sleep(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}

function errCode(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | null)?.code;
}

/** Largest lock file read: Gatehouse writes one line (pid, thread, token). */
const MAX_LOCK_BYTES = 4096;

/**
 * The lock file's content; null when nothing is there. Never blocks: anything there that is not
 * a small regular file (a FIFO the agent planted, whose read would hold the hook) reads as '', an
 * owner no one can name, which waits out the grace period and the timeout like any unreadable lock.
 */
function readOrNull(file: string): string | null {
  if (lstatOrNull(file) === null) return null;
  return readSmallBytes(file, MAX_LOCK_BYTES)?.toString('utf8') ?? '';
}

function ageMs(file: string): number {
  try {
    return Date.now() - statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

function tryCreate(file: string, content: string): boolean {
  let fd: number;
  try {
    fd = openSync(file, 'wx', 0o600);
  } catch (err) {
    if (errCode(err) === 'EEXIST') return false;
    throw err;
  }
  try {
    writeSync(fd, content);
  } finally {
    closeSync(fd);
  }
  return true;
}

/** Whether the lock content names an owner that can no longer release it. */
function isStale(file: string, content: string): boolean {
  const m = OWNER.exec(content);
  if (!m) return ageMs(file) > UNREADABLE_LOCK_GRACE_MS;
  const pid = Number(m[1]);
  if (pid !== process.pid) return !isProcessAlive(pid);
  // Ours: this thread's lock is stale unless it holds it now; another thread's unless it has held it too long.
  if (Number(m[2] ?? 0) === threadId) return !held.has(file);
  return ageMs(file) > OTHER_THREAD_STALE_MS;
}

/**
 * Removes the lock file if it still holds exactly `staleContent`. Stealers serialise on
 * a steal marker and re-read under it, so a lock created after our first read is never
 * removed by mistake; only a stealer stalled past STEAL_MARKER_STALE_MS can race.
 */
function breakStale(file: string, staleContent: string): boolean {
  const marker = `${file}.steal`;
  if (!tryCreate(marker, `${process.pid} ${uniqueToken()}\n`)) {
    if (ageMs(marker) > STEAL_MARKER_STALE_MS) unlinkQuiet(marker);
    return false;
  }
  try {
    if (readOrNull(file) === staleContent) unlinkQuiet(file);
  } finally {
    unlinkQuiet(marker);
  }
  return true;
}

function unlinkQuiet(file: string): void {
  try {
    unlinkSync(file);
  } catch (err) {
    if (errCode(err) !== 'ENOENT') throw err;
  }
}

/**
 * Runs `fn` while holding the exclusive lock `file`, waiting up to `timeoutMs`.
 * Throws an Error naming the lock and its owner when the wait times out.
 * @example withLock('/state/audit/log.lock', () => appendLine())
 */
export function withLock<T>(file: string, fn: () => T, timeoutMs = LOCK_TIMEOUT_MS): T {
  if (held.has(file)) throw new Error(`lock ${file} is already held by this process`);
  const content = `${process.pid} ${threadId} ${uniqueToken()}\n`;
  const deadline = Date.now() + timeoutMs;
  let backoff = FIRST_BACKOFF_MS;
  while (!tryCreate(file, content)) {
    const current = readOrNull(file);
    // Released between our try and our read: try again at once.
    if (current === null) continue;
    if (isStale(file, current) && breakStale(file, current)) continue;
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for the lock ${file} held by pid ${OWNER.exec(current)?.[1] ?? '?'}; if no Gatehouse process is running, delete that file`);
    }
    sleep(backoff * (0.5 + Math.random()));
    backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
  }
  held.add(file);
  try {
    return fn();
  } finally {
    held.delete(file);
    // Remove only our own lock: if it was taken from us (we looked dead), leave theirs.
    if (readOrNull(file) === content) unlinkQuiet(file);
  }
}
