// Shared helpers of the CLI commands: where the hook bundle is, how to find a
// project's state dir, and how to print data as text or JSON.
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveProjectState } from '../runtime/state-base.js';
import { terminalSafeJson } from '../core/display.js';
import type { SessionStore } from '../runtime/session-store.js';
import { UserError } from './exit-codes.js';
import { locateSession } from './locate.js';

/** Absolute path of the lean hook bundle shipped beside the CLI bundle. */
export function hookBundlePath(): string {
  return fileURLToPath(new URL('./hook/hook.js', import.meta.url));
}

/** Absolute path of the gate's worker-thread bundle, beside the hook bundle (long-lived hosts run hook calls in it). */
export function gateWorkerPath(): string {
  return fileURLToPath(new URL('./hook/gate-worker.mjs', import.meta.url));
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

/**
 * Opens session `id`: in the project of the flags, else (from the current folder) wherever on the
 * machine it is; throws a UserError that says what to do.
 */
export function openSession(id: string, worktree: string | undefined, stateDir: string | undefined): SessionStore {
  return locateSession(id, projectStateFor(worktree, stateDir), { worktree, stateDir });
}

/** Prints a value as pretty JSON. */
export function printJson(value: unknown): void {
  // Escaped beyond what JSON needs: a terminal acts on C1 controls and bidi marks in any text.
  process.stdout.write(`${terminalSafeJson(JSON.stringify(value, null, 2))}\n`);
}
