// Atomic file writes: a reader sees the old file or the new one, never half of
// either. Write to a temp file in the same folder, fsync, then rename over (fs-exclusive.ts links
// it instead, to create a file only where none is).
import { closeSync, fchmodSync, fsyncSync, openSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { uniqueToken } from './unique-token.js';

/** Temp names tried before giving up: each is new, so only a folder that refuses creates fails them all. */
const TEMP_TRIES = 8;

/** Options for {@link writeFileAtomic}. */
export interface AtomicWriteOptions {
  /** File mode for a new file; an existing file keeps its mode unless this is set. */
  mode?: number;
  /** Skip fsync: for small state rewritten on every hook call, where a crash may lose the last update but never tear it. */
  noSync?: boolean;
}

/**
 * Replaces `file` with `data` atomically.
 * @example writeFileAtomic('/tmp/x.json', JSON.stringify(v))
 */
export function writeFileAtomic(file: string, data: string | Uint8Array, opts: AtomicWriteOptions = {}): void {
  let mode = opts.mode;
  if (mode === undefined) {
    try {
      mode = statSync(file).mode & 0o7777;
    } catch {
      mode = 0o644;
    }
  }
  const tmp = writeTemp(file, data, mode, opts.noSync === true);
  try {
    renameSync(tmp, file);
  } catch (err) {
    removeTemp(tmp);
    throw err;
  }
}

/** A temp file beside `file` holding `data` with exactly `mode`, closed (and synced unless `noSync`); removed again if that fails. */
export function writeTemp(file: string, data: string | Uint8Array, mode: number, noSync: boolean): string {
  const { tmp, fd } = createTemp(file, mode);
  try {
    // openSync's mode is filtered by the umask; the file must have exactly the mode asked for.
    fchmodSync(fd, mode);
    const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    let off = 0;
    while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
    if (!noSync) fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    removeTemp(tmp);
    throw err;
  }
  closeSync(fd);
  return tmp;
}

/** Removes a temp file, if it is still there. */
export function removeTemp(tmp: string): void {
  try {
    unlinkSync(tmp);
  } catch {
    // already gone
  }
}

/** A new temp file beside `file`, created exclusively; a name taken already (a leftover, a planted file or link) is passed over. */
function createTemp(file: string, mode: number): { tmp: string; fd: number } {
  for (let i = 1; ; i++) {
    const tmp = join(dirname(file), `.${basename(file)}.${process.pid}.${uniqueToken()}.tmp`);
    try {
      return { tmp, fd: openSync(tmp, 'wx', mode) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || i === TEMP_TRIES) throw err;
    }
  }
}
