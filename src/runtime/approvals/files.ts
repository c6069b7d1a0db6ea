// Where approval records live on disk and the two ways they are written: whole-file
// atomic, and exclusive create (temp file + link) so the first writer of a name wins.
import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readdirSync, statSync, unlinkSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { writeFileAtomic } from '../fs-atomic.js';
import { isRefusedFile, readTextOrNull } from '../small-file.js';
import { isApprovalId } from './record.js';

/** Record file mode: approvals name sessions and tools, so only the owner reads them. */
const RECORD_MODE = 0o600;
/** Folder mode, for the same reason. */
const DIR_MODE = 0o700;
const RECORD_SUFFIX = '.json';
// Temp files start with a dot and end in .tmp, so no listing mistakes them for a record.
const TEMP_RE = /^\..*\.tmp$/;

/** The approvals folder of a project state dir and its sub-folders. */
export interface ApprovalPaths {
  root: string;
  pending: string;
  resolved: string;
  /** One heartbeat file per waiting hook or supervisor thread (see waiter.ts). */
  waiters: string;
}

/** The approvals layout inside `projectState`. */
export function approvalPaths(projectState: string): ApprovalPaths {
  const root = join(projectState, 'approvals');
  return { root, pending: join(root, 'pending'), resolved: join(root, 'resolved'), waiters: join(root, 'waiters') };
}

/** Creates the folders if they are missing. */
export function ensureDirs(paths: ApprovalPaths): void {
  mkdirSync(paths.pending, { recursive: true, mode: DIR_MODE });
  mkdirSync(paths.resolved, { recursive: true, mode: DIR_MODE });
}

/** The file of record `id` in `dir`; callers have checked the id with {@link isApprovalId}. */
export function recordFile(dir: string, id: string): string {
  return join(dir, `${id}${RECORD_SUFFIX}`);
}

/** The error code of a Node fs error. */
export function errCode(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | null)?.code;
}

/**
 * Creates `file` holding `data` unless it exists: the data is written and synced in a temp
 * file first, then hard-linked to the final name, which fails with EEXIST if anyone got
 * there first. Readers therefore see no file or a whole one. Returns false if it existed.
 * @example createExclusive('/s/approvals/resolved/ap-1-ab.json', json) // true once, then false
 */
export function createExclusive(file: string, data: string): boolean {
  const tmp = join(dirname(file), `.${basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  writeFileAtomic(tmp, data, { mode: RECORD_MODE });
  try {
    linkSync(tmp, file);
    return true;
  } catch (err) {
    if (errCode(err) === 'EEXIST') return false;
    throw err;
  } finally {
    unlinkQuiet(tmp);
  }
}

/**
 * The text of `file`, or null if it does not exist. A FIFO, folder or device the agent put in
 * its place never blocks the hook waiting on an answer (or the supervisor): it reads as an empty
 * record, which fails every record's checks, so a wait on it ends in a denial.
 */
export function readOrNull(file: string): string | null {
  try {
    return readTextOrNull(file);
  } catch (err) {
    if (isRefusedFile(err)) return '';
    throw err;
  }
}

/** Removes `file` if it exists. */
export function unlinkQuiet(file: string): void {
  try {
    unlinkSync(file);
  } catch (err) {
    if (errCode(err) !== 'ENOENT') throw err;
  }
}

/** Ids of the records in `dir` (temp files and stray names skipped); empty if the folder is missing. */
export function recordIds(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (err) {
    if (errCode(err) === 'ENOENT') return [];
    throw err;
  }
  const ids: string[] = [];
  for (const name of names) {
    if (!name.endsWith(RECORD_SUFFIX)) continue;
    const id = name.slice(0, -RECORD_SUFFIX.length);
    if (isApprovalId(id)) ids.push(id);
  }
  return ids.sort();
}

/** Removes temp files in `dir` older than `maxAgeMs` (left by a process killed mid-write); returns how many. */
export function removeStaleTemps(dir: string, maxAgeMs: number, nowMs: number): number {
  let removed = 0;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  for (const name of names) {
    if (!TEMP_RE.test(name)) continue;
    const file = join(dir, name);
    try {
      if (nowMs - statSync(file).mtimeMs < maxAgeMs) continue;
      unlinkSync(file);
      removed++;
    } catch {
      // Renamed or removed by its writer meanwhile.
    }
  }
  return removed;
}
