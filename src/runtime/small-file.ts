// Reads a small record Gatehouse keeps where the agent may write (an index pointer, a project
// record, a session's meta): only a regular file, never through a link at its name, never more
// than its cap, and never blocking on a FIFO planted in its place. Also `lstatOrNull`, which looks
// at a name without following it; it lives here, apart from the scope walk, so that the hook's
// session layout can use it without loading the walk's hashing (and node:crypto) at start.
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, type BigIntStats } from 'node:fs';
import { isRecord } from '../core/is-record.js';

/**
 * Largest state file read (a baseline of about a million files): past it, or when the name is
 * not a regular file (a FIFO the agent planted would block the read, and the hook with it, until
 * the agent's timeout let the call through), the file cannot be trusted.
 */
export const MAX_STATE_FILE_BYTES = 512 << 20;

/**
 * The error {@link readRegularFile} and {@link openRegularFile} throw for a name that is no regular
 * file (code `ENOTREG`) or one past its cap (`EFBIG`); its message is `<file> <why>`.
 */
export function refused(file: string | Buffer, code: 'ENOTREG' | 'EFBIG', why: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${String(file)} ${why}`), { code });
}

/** Whether `err` is a file {@link readRegularFile} refused: no regular file in its place, or one past its cap. */
export function isRefusedFile(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return code === 'ENOTREG' || code === 'EFBIG';
}

/**
 * Opens `file` to read without ever blocking: a FIFO opened non-blocking returns at once, and
 * fstat then refuses it (code `ENOTREG`), as it refuses a socket, a device or a folder. Errors of
 * the open itself (ENOENT, EACCES, ELOOP for a link when `followLink` is false) are thrown as they are.
 */
function openRegular(file: string | Buffer, followLink: boolean): { fd: number; size: number } {
  const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | (followLink ? 0 : constants.O_NOFOLLOW));
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw refused(file, 'ENOTREG', 'is not a regular file (a FIFO, socket, device or folder stands in its place)');
    return { fd, size: st.size };
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

/**
 * A descriptor to read `file` from, like `openSync(file, 'r')`, except that a FIFO, socket,
 * device or folder in its place never blocks: it throws, code `ENOTREG`. Close it when done.
 * @example const fd = openRegularFile(logPath); try { readSync(fd, buf, 0, n, 0) } finally { closeSync(fd) }
 */
export function openRegularFile(file: string, { followLink = true }: { followLink?: boolean } = {}): number {
  return openRegular(file, followLink).fd;
}

/**
 * The bytes of `file` as `readFileSync` reads them (to its end, following a link unless
 * `followLink` is false), except that a FIFO or device put in its place never blocks: it throws,
 * code `ENOTREG`, and so does a file past `max` bytes (code `EFBIG`; {@link MAX_STATE_FILE_BYTES}
 * unless given). For a file the agent can replace that a long-lived process or a hook reads;
 * errors keep their codes, so `ENOENT` still means missing.
 * @example readRegularFile(join(state, 'audit', 'checkpoints.jsonl'))
 */
export function readRegularFile(file: string | Buffer, { max = MAX_STATE_FILE_BYTES, followLink = true }: { max?: number; followLink?: boolean } = {}): Buffer {
  const { fd, size } = openRegular(file, followLink);
  try {
    if (size > max) throw refused(file, 'EFBIG', `is ${size} bytes, over the ${max} this file may hold`);
    // To the end, like readFileSync: a file appended to while it is read gives what was there.
    // The buffer never grows past max + 1 bytes, and a full one that long is refused before the next read.
    let buf = Buffer.allocUnsafe(size + 1);
    let n = 0;
    for (;;) {
      if (n === buf.length) {
        if (n > max) throw refused(file, 'EFBIG', `grew past the ${max} bytes this file may hold`);
        const bigger = Buffer.allocUnsafe(Math.min(buf.length * 2, max + 1));
        buf.copy(bigger, 0, 0, n);
        buf = bigger;
      }
      const got = readSync(fd, buf, n, buf.length - n, null);
      if (got === 0) return buf.subarray(0, n);
      n += got;
    }
  } finally {
    closeSync(fd);
  }
}

/** The text of `file` as {@link readRegularFile} reads it (UTF-8). */
export function readRegularText(file: string, opts: { max?: number; followLink?: boolean } = {}): string {
  return readRegularFile(file, opts).toString('utf8');
}

/**
 * The text of `file` as {@link readRegularFile} reads it, or null when nothing is there (a FIFO
 * or folder in its place still throws, code `ENOTREG`).
 * @example readTextOrNull(join(home, '.codex', 'config.toml'))
 */
export function readTextOrNull(file: string, max = MAX_STATE_FILE_BYTES): string | null {
  try {
    return readRegularText(file, { max });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/**
 * The bytes of `file`, or null when it is missing, a link (unless `followLink`), not a regular file, over `max` bytes, or
 * changed size while it was read.
 * @example readSmallBytes('/state/cache.bin', 8 << 20)
 */
export function readSmallBytes(file: string | Buffer, max: number, { followLink = false }: { followLink?: boolean } = {}): Buffer | null {
  let opened: { fd: number; size: number };
  try {
    opened = openRegular(file, followLink);
  } catch {
    return null;
  }
  const { fd, size } = opened;
  try {
    if (size > max) return null;
    // One byte more than its size: a file that grew while it was read fills it and is refused.
    const buf = Buffer.allocUnsafe(size + 1);
    let n = 0;
    for (let got = 1; got > 0 && n < buf.length; n += got) got = readSync(fd, buf, n, buf.length - n, null);
    return n === size ? buf.subarray(0, n) : null;
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
