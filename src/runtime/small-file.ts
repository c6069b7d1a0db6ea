// Reads a small record Gatehouse keeps where the agent may write (an index pointer, a project
// record, a session's meta): only a regular file, never through a link at its name, never more
// than its cap, and never blocking on a FIFO planted in its place. Also `lstatOrNull`, which looks
// at a name without following it; it lives here, apart from the scope walk, so that the hook's
// session layout can use it without loading the walk's hashing (and node:crypto) at start.
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, type BigIntStats } from 'node:fs';
import { isRecord } from '../core/is-record.js';

/**
 * The bytes of `file`, or null when it is missing, a link (unless `followLink`), not a regular file, over `max` bytes, or
 * changed size while it was read.
 * @example readSmallBytes('/state/cache.bin', 8 << 20)
 */
export function readSmallBytes(file: string | Buffer, max: number, { followLink = false }: { followLink?: boolean } = {}): Buffer | null {
  let fd: number;
  try {
    // Non-blocking: opening a FIFO (even through a link) returns at once, and fstat refuses it below.
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | (followLink ? 0 : constants.O_NOFOLLOW));
  } catch {
    return null;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > max) return null;
    // One byte more than its size: a file that grew while it was read fills it and is refused.
    const buf = Buffer.allocUnsafe(st.size + 1);
    let n = 0;
    for (let got = 1; got > 0 && n < buf.length; n += got) got = readSync(fd, buf, n, buf.length - n, null);
    return n === st.size ? buf.subarray(0, n) : null;
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** The text of `file`, or null when it cannot be read (see {@link readSmallBytes}). */
function readSmallText(file: string, max: number): string | null {
  return readSmallBytes(file, max)?.toString('utf8') ?? null;
}

/** `file` parsed as a JSON object, or null when it cannot be read (see {@link readSmallText}) or is not one. */
export function readSmallJson(file: string, max: number): Record<string, unknown> | null {
  const text = readSmallText(file, max);
  if (text === null) return null;
  try {
    const v: unknown = JSON.parse(text);
    return isRecord(v) ? v : null;
  } catch {
    return null;
  }
}

/** `lstat`, or null when nothing is at `path` (any other failure is thrown). */
export function lstatOrNull(path: string | Buffer): BigIntStats | null {
  try {
    return lstatSync(path, { bigint: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw err;
  }
}
