// A file Gatehouse owns for one session (Copilot's hooks file, OpenCode's plugin): written
// whole at `session start` with the folders it needs, deleted at `session end` unless someone
// edited it meanwhile, and never written over an existing file.
import { existsSync, mkdirSync, rmdirSync, rmSync } from 'node:fs';
import { readTextOrNull } from '../runtime/small-file.js';
import { dirname } from 'node:path';
import { fail, ok, type Result } from '../core/result.js';
import { writeFileAtomic } from '../runtime/fs-atomic.js';
import { list, object, text, type Infer } from '../core/shape.js';

/** What was written, so that removal deletes exactly that. */
export const OWNED_FILE_FIELDS = {
  file: text(),
  written: text(),
  /** Folders created for it, outermost first (removed again if empty). */
  createdDirs: list(text()),
};
export const OwnedFileRecord = object(OWNED_FILE_FIELDS);
export type OwnedFileRecord = Infer<typeof OwnedFileRecord>;

/** Writes `content` to `file` (creating up to `depth` missing parent folders); refuses an existing file. */
export function writeOwnedFile(file: string, content: string, depth: number): Result<OwnedFileRecord> {
  if (existsSync(file)) return fail(`${file} already exists: another Gatehouse session renders into it; end that session first (gatehouse session end <id>)`);
  const parents: string[] = [];
  for (let dir = dirname(file), i = 0; i < depth; i++, dir = dirname(dir)) parents.unshift(dir);
  const createdDirs: string[] = [];
  try {
    for (const dir of parents) {
      if (existsSync(dir)) continue;
      mkdirSync(dir);
      createdDirs.push(dir);
    }
    writeFileAtomic(file, content);
  } catch (err) {
    // e.g. a file where one of its folders should be: a fault in the user's tree, not a bug.
    if (!(err instanceof Error && typeof (err as NodeJS.ErrnoException).code === 'string')) throw err;
    removeEmptyDirs(createdDirs);
    return fail(`cannot write ${file}: ${err.message}. Check the path and its permissions, then run again`);
  }
  return ok({ file, written: content, createdDirs });
}

/** Deletes the file if it still holds what was written (and its created folders if empty); 1 if deleted. */
export function removeOwnedFile(record: OwnedFileRecord): Result<number> {
  let current: string | null;
  try {
    current = readTextOrNull(record.file);
  } catch (err) {
    // A FIFO or folder in its place (or a file it cannot read): not what was written, so it is left alone.
    return fail(`${(err as Error).message}, so Gatehouse leaves it to you: check it and delete it`);
  }
  if (current === null) return ok(0);
  if (current !== record.written) return fail(`${record.file} was edited during the session, so Gatehouse leaves it to you: check it and delete it`);
  rmSync(record.file);
  removeEmptyDirs(record.createdDirs);
  return ok(1);
}

/** Removes the folders Gatehouse created (outermost first in the list), innermost first, where empty. */
function removeEmptyDirs(createdDirs: string[]): void {
  for (const dir of [...createdDirs].reverse()) {
    try {
      rmdirSync(dir);
    } catch {
      // not empty: someone else keeps files there now
    }
  }
}
