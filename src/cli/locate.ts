// Finds the project of a session id or evidence id from any folder: the current folder's project
// first, then the machine-wide session index and the default project layout (docs/session-index.md).
import { existsSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { EVIDENCE_ID_RE } from '../runtime/evidence/seal.js';
import { defaultProjectStates, findSessionOnMachine, indexedProjectStates, sessionIndexDir } from '../runtime/session-index.js';
import { SessionStore } from '../runtime/session-store.js';
import { stateBase } from '../runtime/state-base.js';
import { isSafeSessionId } from '../runtime/state-dir.js';
import { UserError } from './exit-codes.js';

/** Where the user pointed: `--worktree` (default the current folder) and `--state-dir`. */
export interface ProjectFlags {
  worktree?: string | undefined;
  stateDir?: string | undefined;
}

/** Only a lookup from the current folder searches the machine: an explicit project is taken at its word. */
function searchesMachine(flags: ProjectFlags): boolean {
  return flags.stateDir === undefined && (flags.worktree === undefined || flags.worktree === '.');
}

const NEXT_STEP = 'run the command in the project folder, or pass --worktree DIR (or --state-dir DIR)';

/**
 * Opens session `id`: in `here` (the project of the flags) when it is there, else, for a lookup
 * from the current folder, wherever on the machine it is. Throws a UserError that says what to do.
 */
export function locateSession(id: string, here: string, flags: ProjectFlags, env: NodeJS.ProcessEnv = process.env): SessionStore {
  const local = SessionStore.open(here, id);
  if (local.ok) return local.value;
  if (!isSafeSessionId(id) || !searchesMachine(flags)) throw new UserError(local.reason);
  const base = stateBase(env);
  const { found, rejected } = findSessionOnMachine(base, id);
  if (found.length > 1) {
    const where = found.map((f) => `${f.worktree} (state ${f.projectState})`).join(', ');
    throw new UserError(`session id ${id} was used in ${found.length} projects: ${where}; pass --worktree DIR to choose one`);
  }
  const only = found[0];
  if (only !== undefined) {
    const store = SessionStore.open(only.projectState, id);
    if (store.ok) return store.value;
  }
  if (rejected.length > 0) {
    const why = rejected.map((r) => `${r.projectState}: ${r.reason}`).join('; ');
    throw new UserError(
      `session ${id} was not found in this folder's project (${here}), and the other folders that hold it cannot be trusted from here (${why}). If you trust one, pass its --state-dir DIR`,
    );
  }
  throw new UserError(
    `no session ${id} on this machine: it is not in this folder's project (${here}), in the session index (${sessionIndexDir(base)}) or under ${join(base, 'projects')}. ` +
      `Check the id (\`gatehouse session list\` in the project folder lists its sessions); for a session kept in a custom state folder, ${NEXT_STEP}`,
  );
}

/** Real path of a folder owned by this user, or null. */
function ownedFolder(dir: string): string | null {
  try {
    const real = realpathSync(dir);
    const st = statSync(real);
    if (!st.isDirectory()) return null;
    if (typeof process.getuid === 'function' && st.uid !== process.getuid()) return null;
    return real;
  } catch {
    return null;
  }
}

/** A bundle's file inside a project state folder. */
export function bundleFile(projectState: string, id: string): string {
  return join(projectState, 'evidence', 'bundles', `${id}.json`);
}

/**
 * The project state folder that holds evidence bundle `id`: `here` when it is there, else, for a
 * lookup from the current folder, the one project on the machine that has it. Throws a UserError
 * when none (or, for a forged duplicate, several) do. What is read there is verified as before.
 */
export function locateEvidence(id: string, here: string, flags: ProjectFlags, env: NodeJS.ProcessEnv = process.env): string {
  if (!EVIDENCE_ID_RE.test(id) || existsSync(bundleFile(here, id)) || !searchesMachine(flags)) return here;
  const base = stateBase(env);
  const states = new Set<string>();
  for (const dir of [...indexedProjectStates(base), ...defaultProjectStates(base)]) {
    const real = ownedFolder(dir);
    if (real !== null && existsSync(bundleFile(real, id))) states.add(real);
  }
  if (states.size === 1) return [...states][0]!;
  if (states.size > 1) throw new UserError(`evidence ${id} is in ${states.size} state folders (${[...states].join(', ')}); pass --state-dir DIR to choose one`);
  throw new UserError(
    `no evidence bundle ${id} on this machine: it is not in this folder's project (${here}) nor in any project the session index (${sessionIndexDir(base)}) or ${join(base, 'projects')} holds. ` +
      `Check the id (\`gatehouse evidence list\` in the project folder lists its bundles), or ${NEXT_STEP}`,
  );
}
