// Turns a caller's SpawnSpec into a checked launch: cwd inside the project (real path),
// geometry in bounds, the program found, and the child's environment built.
import { realpathSync, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { fail, ok, type Result } from '../../core/result.js';
import { isInside } from '../../core/write-gate.js';
import type { SpawnSpec } from './types.js';
import { isExecutableFile } from '../../runtime/find-on-path.js';

/** Classic VT100 height: what a program assumes when nobody says otherwise. */
const DEFAULT_ROWS = 24;
/** Classic VT100 width. */
const DEFAULT_COLS = 80;
/**
 * Largest rows or cols accepted. The server-held screen allocates rows x cols cells (plus
 * scrollback x cols), so this bound is what keeps one session's memory bounded; no real
 * window is 1000 cells in either direction.
 */
const MAX_GEOMETRY = 1000;
/** Our screens (xterm.js in the browser, @xterm/headless on the server) speak xterm-256color. */
const DEFAULT_TERM = 'xterm-256color';
/** Used when neither the spec nor `$SHELL` names a program: POSIX guarantees it. */
const FALLBACK_SHELL = '/bin/sh';
/**
 * Describe the server's own terminal, not the new one: a child that reads them would lay
 * out for the wrong size. node-pty drops them only when handed process.env itself.
 */
const INHERITED_ONLY_VARS = ['COLUMNS', 'LINES', 'TERMCAP', 'WINDOWID', 'TMUX', 'TMUX_PANE', 'STY', 'WINDOW'];

/** A spawn request that passed every check, ready for node-pty. */
export interface Launch {
  /** What the caller asked for (or the default shell), as shown in PtyInfo. */
  command: string;
  /** Absolute path of the program that will run. */
  file: string;
  args: string[];
  /** The command line as reported (`SpawnSpec.shown`, else command and args). */
  shown: string[];
  /** `SpawnSpec.gatehouseSession`. */
  gatehouseSession: string | undefined;
  /** Real path, inside the project. */
  cwd: string;
  env: Record<string, string>;
  rows: number;
  cols: number;
}

/** Checks that cols and rows are whole numbers in 1..MAX_GEOMETRY. */
export function checkGeometry(cols: number, rows: number): Result<void> {
  for (const [name, v] of [
    ['cols', cols],
    ['rows', rows],
  ] as const) {
    if (!Number.isInteger(v) || v < 1 || v > MAX_GEOMETRY) {
      return fail(`${name} must be a whole number from 1 to ${MAX_GEOMETRY}, got ${String(v)}`);
    }
  }
  return ok(undefined);
}

/**
 * Checks a spawn request against the project root (a real path) and resolves it.
 * @example prepareLaunch({ cwd: '/repo/src' }, '/repo') // ok: the user's shell, 80x24, in /repo/src
 */
export function prepareLaunch(spec: SpawnSpec, projectRoot: string, baseEnv: NodeJS.ProcessEnv = process.env): Result<Launch> {
  const rows = spec.rows ?? DEFAULT_ROWS;
  const cols = spec.cols ?? DEFAULT_COLS;
  const geometry = checkGeometry(cols, rows);
  if (!geometry.ok) return geometry;

  const cwd = realFolder(spec.cwd, projectRoot);
  if (!cwd.ok) return cwd;

  const env = childEnv(baseEnv, spec.env ?? {}, spec.unsetEnv ?? []);
  const command = spec.command ?? (nonEmpty(env.SHELL) ? env.SHELL : FALLBACK_SHELL);
  if (command.length === 0 || command.includes('\0')) return fail('command must be a non-empty program name or path');
  const args = spec.args ?? [];
  if (args.some((a) => a.includes('\0'))) return fail('arguments must not contain NUL bytes');
  const file = findProgram(command, cwd.value, env.PATH ?? '');
  if (!file.ok) return file;
  const shown = spec.shown !== undefined && spec.shown.length > 0 ? [...spec.shown] : [command, ...args];
  return ok({ command, file: file.value, args: [...args], shown, gatehouseSession: spec.gatehouseSession, cwd: cwd.value, env, rows, cols });
}

function nonEmpty(s: string | undefined): s is string {
  return s !== undefined && s.length > 0;
}

function realFolder(cwd: string, projectRoot: string): Result<string> {
  if (cwd.includes('\0')) return fail('cwd must not contain NUL bytes');
  let real: string;
  try {
    real = realpathSync.native(resolve(projectRoot, cwd));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    return fail(`cwd ${JSON.stringify(cwd)} cannot be opened (${code}): name an existing folder inside the project`);
  }
  if (!isInside(projectRoot, real)) {
    return fail(`cwd ${JSON.stringify(cwd)} is outside the project (${projectRoot}): sessions run inside the project only`);
  }
  if (!statSync(real).isDirectory()) return fail(`cwd ${JSON.stringify(cwd)} is not a folder`);
  return ok(real);
}

function childEnv(base: NodeJS.ProcessEnv, overrides: Record<string, string>, unset: readonly string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(base)) if (v !== undefined) env[k] = v;
  for (const k of INHERITED_ONLY_VARS) delete env[k];
  env.TERM = DEFAULT_TERM;
  Object.assign(env, overrides);
  for (const k of unset) delete env[k];
  return env;
}

/** Like execvp's search, done up front so a missing program is a clear refusal, not a dead session. */
function findProgram(command: string, cwd: string, path: string): Result<string> {
  if (command.includes('/')) {
    const abs = isAbsolute(command) ? command : resolve(cwd, command);
    return isExecutableFile(abs) ? ok(abs) : fail(`cannot run ${JSON.stringify(command)}: not an executable file`);
  }
  for (const dir of path.split(delimiter)) {
    if (dir.length === 0) continue;
    const candidate = resolve(cwd, join(dir, command));
    if (isExecutableFile(candidate)) return ok(candidate);
  }
  return fail(`command not found: ${JSON.stringify(command)} is not on PATH; give its absolute path or install it`);
}
