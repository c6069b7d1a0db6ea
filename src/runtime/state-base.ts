// Where Gatehouse keeps its state: outside the worktree by default (an agent's sandbox
// usually can write only inside it), one folder per project keyed by the worktree's real path.
import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { basename, isAbsolute, join, resolve } from 'node:path';

/** The base state folder: `$GATEHOUSE_HOME`, else `$XDG_STATE_HOME/gatehouse`, else `~/.local/state/gatehouse`. */
export function stateBase(env: NodeJS.ProcessEnv = process.env): string {
  const home = env.GATEHOUSE_HOME;
  if (home && isAbsolute(home)) return home;
  if (home) return resolve(home);
  const xdg = env.XDG_STATE_HOME;
  if (xdg && isAbsolute(xdg)) return join(xdg, 'gatehouse');
  return join(homedir(), '.local', 'state', 'gatehouse');
}

/**
 * A project's key: its state folder's name under `<base>/projects/`, the worktree's plain name and
 * a digest of its real path. Stable, safe in a URL and a path, and checkable against a worktree.
 * @example projectKey('/src/app') // 'app-1a2b3c4d5e6f7a8b'
 */
export function projectKey(worktreeReal: string): string {
  const digest = createHash('sha256').update(worktreeReal).digest('hex').slice(0, 16);
  const name =
    basename(worktreeReal)
      .replace(/[^A-Za-z0-9_.-]/g, '_')
      .slice(0, 40) || 'root';
  return `${name}-${digest}`;
}

/** The folder that holds every project's default state folder. */
export function projectsDir(base: string): string {
  return join(base, 'projects');
}

/**
 * The project's state folder for a worktree (given as a real path).
 * @example projectStateDir('/home/me/.local/state/gatehouse', '/src/app') // …/projects/app-1a2b3c4d5e6f7a8b
 */
function projectStateDir(base: string, worktreeReal: string): string {
  return join(projectsDir(base), projectKey(worktreeReal));
}

/** Resolves the project state dir for a worktree (real path): `stateDir` when given, else its folder under the state base. */
export function resolveProjectState(worktreeReal: string, env: NodeJS.ProcessEnv, stateDir?: string): string {
  return stateDir ? resolve(stateDir) : projectStateDir(stateBase(env), worktreeReal);
}
