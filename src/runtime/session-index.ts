// The machine-wide session index: one pointer file per session in the state base, so a command
// given only a session id finds its project from any folder. A pointer is a hint, never trusted.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, realpathSync, statSync, type Stats } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { writeFileAtomic } from './fs-atomic.js';
import { startDigests } from './session-trust.js';
import { isSafeSessionId, sessionDir } from './state-dir.js';
import { readSmallJson } from './small-file.js';

/** What a pointer records: where the session's state folder is, and for which worktree. */
export interface SessionPointer {
  v: 1;
  id: string;
  state_dir: string;
  worktree: string;
  started_at: string;
}

/** Pointers are a few hundred bytes; anything larger is not ours and is not parsed. */
const MAX_POINTER_BYTES = 4096;
/** meta.json and policy.json are read only to bind a candidate to the id; a policy with many rules stays far below this. */
const MAX_BIND_FILE_BYTES = 4 * 1024 * 1024;

/** The index folder inside a state base. */
export function sessionIndexDir(base: string): string {
  return join(base, 'index', 'sessions');
}

/** One file per (id, state folder): two projects that reuse an `--id` never overwrite each other's pointer. */
function pointerFile(base: string, id: string, stateDir: string): string {
  return join(sessionIndexDir(base), id, `${createHash('sha256').update(stateDir).digest('hex').slice(0, 16)}.json`);
}

/**
 * Records where a session lives (atomically, 0600, folders 0700). Best effort: a session whose
 * pointer could not be written is still found from its project folder. Returns whether it was written.
 */
export function recordSessionPointer(base: string, ptr: Omit<SessionPointer, 'v'>): boolean {
  if (!isSafeSessionId(ptr.id)) return false;
  try {
    const file = pointerFile(base, ptr.id, ptr.state_dir);
    mkdirSync(join(sessionIndexDir(base), ptr.id), { recursive: true, mode: 0o700 });
    writeFileAtomic(file, `${JSON.stringify({ v: 1, ...ptr } satisfies SessionPointer)}\n`, { mode: 0o600 });
    return true;
  } catch {
    return false;
  }
}

/** The state folders the index names for `id` (unvalidated: see {@link bindSession}). */
function indexedStateDirs(base: string, id: string): string[] {
  let names: string[];
  try {
    names = readdirSync(join(sessionIndexDir(base), id));
  } catch {
    return [];
  }
  return names.flatMap((n) => {
    if (!/^[0-9a-f]{16}\.json$/.test(n)) return [];
    const p = readSmallJson(join(sessionIndexDir(base), id, n), MAX_POINTER_BYTES);
    return p !== null && p.v === 1 && p.id === id && typeof p.state_dir === 'string' && isAbsolute(p.state_dir) ? [p.state_dir] : [];
  });
}

/** Every project folder in the default layout (`<base>/projects/*`): found without the index. */
export function defaultProjectStates(base: string): string[] {
  try {
    return readdirSync(join(base, 'projects')).map((n) => join(base, 'projects', n));
  } catch {
    return [];
  }
}

/** Every state folder the index names (for lookups by something other than a session id). */
export function indexedProjectStates(base: string): string[] {
  let ids: string[];
  try {
    ids = readdirSync(sessionIndexDir(base)).filter(isSafeSessionId);
  } catch {
    return [];
  }
  return [...new Set(ids.flatMap((id) => indexedStateDirs(base, id)))];
}

/** A session found on the machine: its project state folder (real path) and worktree. */
export interface BoundSession {
  projectState: string;
  worktree: string;
}

/** A candidate folder that holds a session folder for the id but was not accepted, and why. */
export interface RejectedSession {
  projectState: string;
  reason: string;
}

/**
 * Accepts `stateDir` as the home of session `id` only if it is a real folder owned by this user
 * whose session folder names the same id in meta.json and policy.json, whose policy names this
 * very state folder (a copy of a session moved elsewhere does not), and whose audit log holds the
 * session's start digests: a folder planted without them would otherwise be read the way sessions
 * of older versions are, unchecked. The commands that act on the files then check those digests
 * as they always do (docs/trust-boundary.md). Null when there is no session folder for `id` at all.
 */
function bindSession(stateDir: string, id: string): { ok: true; value: BoundSession } | { ok: false; rejected: RejectedSession } | null {
  if (!isSafeSessionId(id)) return null;
  let real: string;
  let st: Stats;
  try {
    real = realpathSync(stateDir);
    st = statSync(sessionDir(real, id));
    if (!st.isDirectory()) return null;
  } catch {
    return null;
  }
  const reject = (reason: string): { ok: false; rejected: RejectedSession } => ({ ok: false, rejected: { projectState: real, reason } });
  if (typeof process.getuid === 'function' && st.uid !== process.getuid()) return reject('its session folder belongs to another user');
  const meta = readSmallJson(join(sessionDir(real, id), 'meta.json'), MAX_BIND_FILE_BYTES);
  const policy = readSmallJson(join(sessionDir(real, id), 'policy.json'), MAX_BIND_FILE_BYTES);
  if (meta === null || policy === null || meta.id !== id || policy.session_id !== id || typeof meta.worktree !== 'string')
    return reject('its meta.json or policy.json is missing, unreadable or names another session');
  if (policy.state_dir !== real) return reject(`its policy belongs to the state folder ${String(policy.state_dir)} (a copy of the session)`);
  if (startDigests(real, id) === null) return reject("its audit log has no start record with the files' digests (a session of an older Gatehouse, or a planted folder)");
  return { ok: true, value: { projectState: real, worktree: meta.worktree } };
}

/**
 * Every place on the machine that holds session `id`: the folders the index points to and the
 * projects of the default layout, each checked by {@link bindSession}. More than one found means
 * the id was reused with `--id` in several projects.
 */
export function findSessionOnMachine(base: string, id: string): { found: BoundSession[]; rejected: RejectedSession[] } {
  const found = new Map<string, BoundSession>();
  const rejected = new Map<string, RejectedSession>();
  if (!isSafeSessionId(id)) return { found: [], rejected: [] };
  for (const dir of [...indexedStateDirs(base, id), ...defaultProjectStates(base)]) {
    const b = bindSession(dir, id);
    if (b === null) continue;
    if (b.ok) found.set(b.value.projectState, b.value);
    else rejected.set(b.rejected.projectState, b.rejected);
  }
  return { found: [...found.values()], rejected: [...rejected.values()].filter((r) => !found.has(r.projectState)) };
}
