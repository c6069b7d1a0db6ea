// Atomic file writes: a reader sees the old file or the new one, never half of
// either. Write to a temp file in the same folder, fsync, then rename over.
import { closeSync, fchmodSync, fsyncSync, openSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';

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
  const tmp = join(dirname(file), `.${basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = openSync(tmp, 'wx', mode);
  try {
    // openSync's mode is filtered by the umask; the file must keep exactly its old mode.
    fchmodSync(fd, mode);
    const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    let off = 0;
    while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
    if (!opts.noSync) fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    try {
      unlinkSync(tmp);
    } catch {
      // already gone
    }
    throw err;
  }
  closeSync(fd);
  try {
    renameSync(tmp, file);
  } catch (err) {
    try {
      unlinkSync(tmp);
    } catch {
      // already gone
    }
    throw err;
  }
}
