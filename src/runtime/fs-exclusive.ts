// Creates a file only where none is, atomically: fs-atomic's temp file, linked to its name (link(2)
// fails with EEXIST where anything is, a link too), never renamed over. Apart from fs-atomic so that
// a bundle that only replaces files (the hook's loader) imports no linkSync it never calls.
import { linkSync } from 'node:fs';
import { removeTemp, writeTemp, type AtomicWriteOptions } from './fs-atomic.js';

/**
 * Creates `file` with `data`, atomically and exclusively: a reader never sees half of it, and a
 * file already at that name (or a link) is never replaced: link(2) fails with EEXIST, as O_EXCL
 * would. For records written once and never rewritten (evidence bundles).
 * @example createFileExclusive('/state/evidence/bundles/ev-1.json', text, { noSync: true })
 */
export function createFileExclusive(file: string, data: string | Uint8Array, opts: AtomicWriteOptions = {}): void {
  const tmp = writeTemp(file, data, opts.mode ?? 0o644, opts.noSync === true);
  try {
    linkSync(tmp, file);
  } finally {
    removeTemp(tmp);
  }
}
