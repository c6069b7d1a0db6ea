// Reads a small record Gatehouse keeps where the agent may write (an index pointer, a project
// record, a session's meta): only a regular file, never through a link at its name, never more
// than its cap, and never blocking on a FIFO planted in its place.
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { isRecord } from '../core/is-record.js';

/**
 * The text of `file`, or null when it is missing, a link, not a regular file, or over `max` bytes.
 * @example readSmallText('/state/project.json', 8192)
 */
function readSmallText(file: string, max: number): string | null {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > max) return null;
    const buf = Buffer.alloc(max + 1);
    let n = 0;
    for (let got = 1; got > 0 && n <= max; n += got) got = readSync(fd, buf, n, buf.length - n, null);
    return n > max ? null : buf.subarray(0, n).toString('utf8');
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
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
