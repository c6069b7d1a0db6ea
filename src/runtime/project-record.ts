// Which worktree a project state folder belongs to, for a supervisor that serves every project
// under the state base. Every file there is agent-writable: a worktree is believed only when its digest is the folder's key.
import { lstatSync, mkdirSync, readdirSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { writeFileAtomic } from './fs-atomic.js';
import { projectKey, projectsDir, stateBase } from './state-base.js';
import { isSafeSessionId } from './state-dir.js';
import { readSmallJson } from './small-file.js';

/** A project key as {@link projectKey} makes it: a plain name of up to 40 characters, `-`, 16 hex digits. */
const PROJECT_KEY_RE = /^[A-Za-z0-9_.-]{1,40}-[0-9a-f]{16}$/;
/** The record `session start` and `serve` leave in a project state folder. */
const PROJECT_RECORD_FILE = 'project.json';
/** A record is one path; anything larger is not ours and is not parsed. */
const MAX_RECORD_BYTES = 8 * 1024;
/** A session's meta.json is a few hundred bytes; the cap bounds what a planted one costs. */
const MAX_META_BYTES = 64 * 1024;
/** Sessions looked at, newest first, for a worktree (without a record) and for "active": enough for any real project, and a bound on a listing's cost. */
const SESSIONS_LOOKED_AT = 64;

/** True if `key` can be a project key (and so a folder name under `<base>/projects/`). */
export function isProjectKey(key: string): boolean {
  return PROJECT_KEY_RE.test(key);
}

/**
 * The key of a state folder (a real path) in the default layout of the state base
 * (`<base>/projects/<key>`), which `serve --all` serves; null for any other folder.
 */
export function defaultLayoutKey(projectState: string, env: NodeJS.ProcessEnv): string | null {
  try {
    if (dirname(projectState) !== realpathSync(projectsDir(stateBase(env)))) return null;
  } catch {
    return null;
  }
  const key = basename(projectState);
  return isProjectKey(key) ? key : null;
}

/** One project state folder under the state base, as a supervisor of all projects sees it. */
export interface ProjectEntry {
  key: string;
  /** The state folder, `<base>/projects/<key>`. */
  state: string;
  /** The worktree (real path), or null when it cannot be told or no longer exists (see `problem`). */
  worktree: string | null;
  problem: string | null;
}

/**
 * Records which worktree this state folder is for (0600, atomically). Best effort: a project
 * without it is still found through its sessions' meta.json.
 */
export function writeProjectRecord(projectState: string, worktreeReal: string): void {
  try {
    mkdirSync(projectState, { recursive: true, mode: 0o700 });
    writeFileAtomic(join(projectState, PROJECT_RECORD_FILE), `${JSON.stringify({ v: 1, worktree: worktreeReal })}\n`, { mode: 0o600 });
  } catch {
    // A read-only or odd state folder: the session start goes on, the project is found through its sessions.
  }
}

/** The newest session ids of a state folder (ids start with their start time, so they sort by age). */
function newestSessions(projectState: string): string[] {
  try {
    return readdirSync(join(projectState, 'sessions')).filter(isSafeSessionId).sort().reverse().slice(0, SESSIONS_LOOKED_AT);
  } catch {
    return [];
  }
}

/** A claimed worktree, accepted only when it is an absolute path whose key is this folder's. */
function claimed(value: unknown, key: string): string | null {
  return typeof value === 'string' && isAbsolute(value) && projectKey(value) === key ? value : null;
}

/** The worktree the folder's record names, else the one its newest sessions name; each checked against the key. */
function worktreeOf(projectState: string, key: string): string | null {
  const rec = readSmallJson(join(projectState, PROJECT_RECORD_FILE), MAX_RECORD_BYTES);
  const fromRecord = rec !== null && rec.v === 1 ? claimed(rec.worktree, key) : null;
  if (fromRecord !== null) return fromRecord;
  for (const id of newestSessions(projectState)) {
    const w = claimed(readSmallJson(join(projectState, 'sessions', id, 'meta.json'), MAX_META_BYTES)?.worktree, key);
    if (w !== null) return w;
  }
  return null;
}

/**
 * The project `key` under `base`, or null when there is no such folder. A folder that is a link,
 * belongs to another user, or names no worktree whose digest is its key is listed with its problem.
 */
export function projectEntry(base: string, key: string): ProjectEntry | null {
  if (!isProjectKey(key)) return null;
  const state = join(projectsDir(base), key);
  let st;
  try {
    st = lstatSync(state);
  } catch {
    return null;
  }
  const entry = (worktree: string | null, problem: string | null): ProjectEntry => ({ key, state, worktree, problem });
  if (!st.isDirectory()) return entry(null, 'its state folder is not a folder (a link or a file): it is not served');
  if (typeof process.getuid === 'function' && st.uid !== process.getuid()) return entry(null, 'its state folder belongs to another user: it is not served');
  const worktree = worktreeOf(state, key);
  if (worktree === null) return entry(null, 'no record or session names its worktree: run `gatehouse serve` or `gatehouse session start` in the project once');
  try {
    if (realpathSync(worktree) !== worktree) return entry(null, `its worktree ${worktree} has moved (a link now stands there): it is not served`);
  } catch {
    return entry(null, `its worktree ${worktree} no longer exists: it is not served`);
  }
  return entry(worktree, null);
}

/** Every project state folder under `base` (`<base>/projects/*` with a project key as its name), by key. */
export function listProjects(base: string): ProjectEntry[] {
  let names: string[];
  try {
    names = readdirSync(projectsDir(base));
  } catch {
    return [];
  }
  return names
    .filter(isProjectKey)
    .sort()
    .flatMap((n) => projectEntry(base, n) ?? []);
}

/** How many of the project's newest sessions are active (started and not ended). */
export function activeSessionCount(projectState: string): number {
  return newestSessions(projectState).filter((id) => readSmallJson(join(projectState, 'sessions', id, 'meta.json'), MAX_META_BYTES)?.status === 'active').length;
}
