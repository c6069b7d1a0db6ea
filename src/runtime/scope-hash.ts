// Content digests for the scope check: raw bytes, no filters, streamed, capped by size,
// and bounded in time by a deadline that a Stop hook inside its budget passes down.
import { createHash } from 'node:crypto';
import { closeSync, constants, openSync, readSync, readlinkSync } from 'node:fs';
import type { BigIntStats } from 'node:fs';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { digest } from '../core/crypto/digest.js';
import { isoTime } from '../core/iso-time.js';

/**
 * Largest file whose content is hashed. A bigger file outside the allowlist counts as
 * modified as soon as its stat fields change: no source file is this large, and reading
 * this much costs about a tenth of a second, so a planted huge (or sparse) file cannot
 * stretch a check past its budget.
 */
export const HASH_MAX_BYTES = 64 * 1024 * 1024;

/** Bytes read per call; between calls the async reader checks the deadline and yields. */
const CHUNK_BYTES = 1024 * 1024;

/** Room for git's `blob <size>\0` object header in front of a file's bytes. */
const BLOB_HEADER_MAX_BYTES = 32;

/**
 * One read buffer shared by every read that does not yield before it is done (a file
 * that fits in one chunk, or the synchronous reader): a fresh megabyte per file would
 * cost more than the reading on a tree of small files. The data hashed from it never
 * outlives the call.
 */
const shared = Buffer.allocUnsafe(CHUNK_BYTES + BLOB_HEADER_MAX_BYTES);

/**
 * Opened without following a symlink and without blocking: a file swapped for a link to
 * `/dev/zero` or for a FIFO between the walk's lstat and the read is refused, not read.
 */
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** Thrown when a check passes its deadline; the caller decides what an unfinished check means. */
export class ScopeBudgetError extends Error {
  constructor(deadline: number) {
    super(`the scope check ran past its time budget (deadline ${isoTime(deadline)})`);
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
 * Returns null when the file cannot be read as the file the walk saw (removed meanwhile,
 * no permission, swapped for something else, grown past the cap). A file that fits in
 * one chunk is hashed synchronously, without a promise: most of a tree is such files.
 */
export function digestOf(path: FsPath, st: BigIntStats, blobAlgo: string | null, deadline?: number): Digest | null | Promise<Digest | null> {
  const small = digestSmall(path, st, blobAlgo);
  return small !== undefined ? small : digestLarge(path, st, blobAlgo, deadline);
}

/** The sha256 (base64) of a file's raw content, read synchronously; null when it cannot be read. */
export function digestSync(path: FsPath, st: BigIntStats): string | null {
  const small = digestSmall(path, st, null);
  if (small !== undefined) return small?.sha256 ?? null;
  const fd = openFile(path);
  if (fd === null) return null;
  const h = createHash('sha256');
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

/**
 * One read into the shared buffer, after git's object header when a blob id is wanted,
 * so both digests come from the same bytes in place; undefined when the file takes more
 * than one chunk.
 */
function digestSmall(path: FsPath, st: BigIntStats, blobAlgo: string | null): Digest | null | undefined {
  if (st.isSymbolicLink()) {
    const target = readLink(path);
    if (target === null) return null;
    const blob = blobAlgo === null ? null : digest(blobAlgo, Buffer.concat([Buffer.from(`blob ${target.length}\0`), target]), 'hex');
    return { sha256: digest('sha256', target, 'base64'), blob };
  }
  if (st.size >= BigInt(CHUNK_BYTES)) return undefined;
  const fd = openFile(path);
  if (fd === null) return null;
  const start = blobAlgo === null ? 0 : shared.write(`blob ${st.size}\0`, 0, 'latin1');
  const end = start + CHUNK_BYTES;
  let n = start;
  try {
    // Up to a whole chunk: one more byte than lstat said shows a file that grew.
    for (let got = readOrZero(fd, shared, n, end); got > 0; got = n < end ? readOrZero(fd, shared, n, end) : 0) n += got;
  } finally {
    closeSync(fd);
  }
  if (BigInt(n - start) !== st.size) return null;
  return { sha256: digest('sha256', shared.subarray(start, n), 'base64'), blob: blobAlgo === null ? null : digest(blobAlgo, shared.subarray(0, n), 'hex') };
}

async function digestLarge(path: FsPath, st: BigIntStats, blobAlgo: string | null, deadline?: number): Promise<Digest | null> {
  const fd = openFile(path);
  if (fd === null) return null;
  const sha = createHash('sha256');
  const blob = blobAlgo === null ? null : createHash(blobAlgo).update(`blob ${st.size}\0`);
  // Yields between chunks: this file needs a buffer of its own.
  const buf = Buffer.allocUnsafe(CHUNK_BYTES);
  try {
    let total = 0;
    for (let n = readOrZero(fd, buf); n > 0; n = readOrZero(fd, buf)) {
      total += n;
      if (total > HASH_MAX_BYTES) return null;
      sha.update(buf.subarray(0, n));
      blob?.update(buf.subarray(0, n));
      checkDeadline(deadline);
      await nextTurn();
    }
    if (BigInt(total) !== st.size) return null;
  } finally {
    closeSync(fd);
  }
  return { sha256: sha.digest('base64'), blob: blob?.digest('hex') ?? null };
}

function readLink(path: FsPath): Buffer | null {
  try {
    return readlinkSync(path, { encoding: 'buffer' });
  } catch {
    return null;
  }
}

/**
 * An fd to read `path`, or null when it cannot be opened. No fstat: the flags already
 * refuse a symlink and never block, and whatever else slipped in reads no further than
 * the cap.
 */
function openFile(path: FsPath): number | null {
  try {
    return openSync(path, OPEN_FLAGS);
  } catch {
    return null;
  }
}

/** A read into `buf` from `offset` up to `end`, taking EAGAIN (a FIFO slipped in after all) as the end. */
function readOrZero(fd: number, buf: Buffer, offset = 0, end = buf.length): number {
  try {
    return readSync(fd, buf, offset, end - offset, null);
  } catch {
    return 0;
  }
}
