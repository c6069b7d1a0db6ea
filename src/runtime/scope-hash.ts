// Content digests for the scope check: raw bytes, no filters, streamed, capped by size,
// and bounded in time by a deadline that a Stop hook inside its budget passes down.
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readSync, readlinkSync } from 'node:fs';
import type { BigIntStats } from 'node:fs';
import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Largest file whose content is hashed. A bigger file outside the allowlist counts as
 * modified as soon as its stat fields change: no source file is this large, and reading
 * this much costs about a tenth of a second, so a planted huge (or sparse) file cannot
 * stretch a check past its budget.
 */
export const HASH_MAX_BYTES = 64 * 1024 * 1024;

/** Bytes read per call; between calls the async reader checks the deadline and yields. */
const CHUNK_BYTES = 1024 * 1024;

/**
 * One read buffer shared by every read that does not yield before it is done (a file
 * that fits in one chunk, or the synchronous reader): a fresh megabyte per file would
 * cost more than the reading on a tree of small files.
 */
const shared = Buffer.allocUnsafe(CHUNK_BYTES);

/**
 * Opened without following a symlink and without blocking: a file swapped for a link to
 * `/dev/zero` or for a FIFO between the walk's lstat and the read is refused, not read.
 */
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** Thrown when a check passes its deadline; the caller decides what an unfinished check means. */
export class ScopeBudgetError extends Error {
  constructor(deadline: number) {
    super(`the scope check ran past its time budget (deadline ${new Date(deadline).toISOString()})`);
    this.name = 'ScopeBudgetError';
  }
}

/** Throws {@link ScopeBudgetError} once `Date.now()` is past `deadline`. */
export function checkDeadline(deadline: number | undefined): void {
  if (deadline !== undefined && Date.now() > deadline) throw new ScopeBudgetError(deadline);
}

/** A path for `node:fs`: a Buffer when a name is not valid UTF-8 and must be passed byte for byte. */
export type FsPath = string | Buffer;

/** What one read of a file yields: its sha256 (base64) and, when asked, its git object id. */
export interface Digest {
  sha256: string;
  blob: string | null;
}

/**
 * Hashes the raw content (a symlink: its target text, never followed). `blobAlgo` also
 * computes git's object id of the same bytes (`sha1` or `sha256`), from the same read.
 * Returns null when the file cannot be read as the regular file the walk saw (removed
 * meanwhile, no permission, swapped for something else, grown past the cap).
 */
export async function digestOf(path: FsPath, st: BigIntStats, blobAlgo: string | null, deadline?: number): Promise<Digest | null> {
  const sha = createHash('sha256');
  const blob = blobAlgo === null ? null : createHash(blobAlgo).update(`blob ${st.size}\0`);
  const feed = (b: Buffer): void => {
    sha.update(b);
    blob?.update(b);
  };
  if (st.isSymbolicLink()) {
    const target = readLink(path);
    if (target === null) return null;
    feed(target);
  } else {
    const fd = openFile(path);
    if (fd === null) return null;
    try {
      // A file that may take more than one chunk yields in between: it needs its own buffer.
      const buf = st.size < BigInt(CHUNK_BYTES) ? shared : Buffer.allocUnsafe(CHUNK_BYTES);
      let total = 0;
      for (let n = readOrZero(fd, buf); n > 0; n = readOrZero(fd, buf)) {
        total += n;
        if (total > HASH_MAX_BYTES) return null;
        feed(buf.subarray(0, n));
        if (buf !== shared && n === CHUNK_BYTES) {
          checkDeadline(deadline);
          await nextTurn();
        }
      }
      if (BigInt(total) !== st.size) return null;
    } finally {
      closeSync(fd);
    }
  }
  return { sha256: sha.digest('base64'), blob: blob?.digest('hex') ?? null };
}

/** The sha256 (base64) of a file's raw content, read synchronously; null when it cannot be read. */
export function digestSync(path: FsPath, st: BigIntStats): string | null {
  const h = createHash('sha256');
  if (st.isSymbolicLink()) {
    const target = readLink(path);
    if (target === null) return null;
    return h.update(target).digest('base64');
  }
  const fd = openFile(path);
  if (fd === null) return null;
  try {
    let total = 0;
    for (let n = readOrZero(fd, shared); n > 0; n = readOrZero(fd, shared)) {
      total += n;
      if (total > HASH_MAX_BYTES) return null;
      h.update(shared.subarray(0, n));
    }
  } finally {
    closeSync(fd);
  }
  return h.digest('base64');
}

function readLink(path: FsPath): Buffer | null {
  try {
    return readlinkSync(path, { encoding: 'buffer' });
  } catch {
    return null;
  }
}

/** An fd of the regular file at `path`, or null when it is not one (or cannot be opened). */
function openFile(path: FsPath): number | null {
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS);
  } catch {
    return null;
  }
  if (fstatSync(fd).isFile()) return fd;
  closeSync(fd);
  return null;
}

/** A read that treats EAGAIN (a FIFO slipped in after all) as the end. */
function readOrZero(fd: number, buf: Buffer): number {
  try {
    return readSync(fd, buf);
  } catch {
    return 0;
  }
}
