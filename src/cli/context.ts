// Shared helpers of the CLI commands: where the hook bundle is, how to find a
// project's state dir, and how to print data as text or JSON.
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveProjectState } from '../adapters/session-lifecycle.js';
import { SessionStore } from '../runtime/session-store.js';
import { UserError } from './exit-codes.js';

/** Absolute path of the lean hook bundle shipped beside the CLI bundle. */
export function hookBundlePath(): string {
  return fileURLToPath(new URL('./hook/hook.js', import.meta.url));
}

/** The project state dir for a worktree (default: the current folder). */
export function projectStateFor(worktree: string | undefined, stateDir: string | undefined): string {
  let real: string;
  try {
    real = realpathSync(resolve(worktree ?? '.'));
  } catch {
    throw new UserError(`--worktree ${worktree ?? '.'} does not exist`);
  }
  return resolveProjectState(real, process.env, stateDir);
}

/** Opens a session of the project or throws a UserError that says what to do. */
export function openSession(id: string, worktree: string | undefined, stateDir: string | undefined): SessionStore {
  const store = SessionStore.open(projectStateFor(worktree, stateDir), id);
  if (!store.ok) throw new UserError(store.reason);
  return store.value;
}

/** Prints a value as pretty JSON. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
