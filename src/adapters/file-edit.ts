// Undoing an edit Gatehouse made to a file another program also writes (an agent's trust
// list): the exact original when the file still holds what we wrote, otherwise only our part.
import { rmSync } from 'node:fs';
import { readTextOrNull } from '../runtime/small-file.js';
import { fail, ok, type Result } from '../core/result.js';
import { writeFileAtomic } from '../runtime/fs-atomic.js';

/** One edit: the file's text before (null: it did not exist) and the text written (null: nothing was). */
export interface FileEdit {
  file: string;
  original: string | null;
  written: string | null;
}

/**
 * Restores `edit.original` (or deletes a file we created) when the file still holds what we
 * wrote. If something changed it since, `patch(current)` returns the text to write instead —
 * the current text without our part — or null to leave the file alone. The file keeps its mode.
 */
export function undoFileEdit(edit: FileEdit, patch: (current: string) => Result<string | null>): Result<void> {
  if (edit.written === null) return ok(undefined);
  let current: string | null;
  try {
    current = readTextOrNull(edit.file);
  } catch (err) {
    // A FIFO or folder in its place: nothing Gatehouse wrote is there to undo.
    return fail(`${(err as Error).message}, so Gatehouse leaves it to you: check it`);
  }
  if (current === null) return ok(undefined);
  if (current === edit.written) {
    if (edit.original === null) rmSync(edit.file, { force: true });
    else writeFileAtomic(edit.file, edit.original);
    return ok(undefined);
  }
  const next = patch(current);
  if (!next.ok) return next;
  if (next.value !== null && next.value !== current) writeFileAtomic(edit.file, next.value);
  return ok(undefined);
}
