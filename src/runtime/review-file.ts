// Reads the file a write or an edit would change, for the person asked to approve it: only a
// regular file inside the worktree, never through a link, never more than a card can show.
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import type { CurrentFile } from '../core/approvals/detail.js';

/** Largest file read for a card: a diff of a bigger one is not something a person reviews on a phone. */
const MAX_REVIEW_FILE_BYTES = 1024 * 1024;

/**
 * The file at `rel` (relative to `worktree`, as the gate resolved the call's target) as it is now.
 * @example readForReview('/w', 'src/a.ts') // { kind: 'text', text: 'export const a = 1;\n' }
 */
export function readForReview(worktree: string, rel: string): CurrentFile {
  if (isAbsolute(rel) || rel === '..' || rel.startsWith('../')) return { kind: 'unreadable', why: 'it is outside the worktree' };
  let fd: number;
  try {
    // No link is followed, and a FIFO planted at the path cannot block the hook.
    fd = openSync(join(worktree, rel), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { kind: 'missing' };
    return { kind: 'unreadable', why: code === 'ELOOP' ? 'it is a symbolic link' : `it cannot be read (${code ?? 'error'})` };
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return { kind: 'unreadable', why: 'it is not a regular file' };
    if (st.size > MAX_REVIEW_FILE_BYTES) return { kind: 'unreadable', why: `it is larger than ${MAX_REVIEW_FILE_BYTES / 1024 / 1024} MiB` };
    const buf = Buffer.alloc(st.size);
    let got = 0;
    while (got < buf.length) {
      const n = readSync(fd, buf, got, buf.length - got, got);
      if (n === 0) break;
      got += n;
    }
    const bytes = buf.subarray(0, got);
    if (bytes.includes(0)) return { kind: 'unreadable', why: 'it is a binary file' };
    return { kind: 'text', text: bytes.toString('utf8') };
  } catch (err) {
    return { kind: 'unreadable', why: `it cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})` };
  } finally {
    closeSync(fd);
  }
}
