// Runs the built `gatehouse` CLI and hook bundle as real processes for tests.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** Absolute paths of the built bundles. */
export const CLI = resolve('dist/cli.js');
export const HOOK = resolve('dist/hook/hook.js');

/** Result of one process run. */
export interface Ran {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `gatehouse …` with an isolated state home. */
export function gatehouse(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string; timeout?: number } = {}): Ran {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    cwd: opts.cwd ?? process.cwd(),
    env: { ...process.env, ...opts.env },
    input: opts.input ?? '',
    encoding: 'utf8',
    timeout: opts.timeout ?? 120_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Runs the hook bundle with a hook JSON payload on stdin. */
export function hook(args: string[], payload: unknown, opts: { cwd?: string } = {}): Ran {
  const r = spawnSync(process.execPath, [HOOK, ...args], {
    cwd: opts.cwd ?? process.cwd(),
    input: typeof payload === 'string' ? payload : JSON.stringify(payload),
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A fresh real temp folder. */
/**
 * A session's env in a test that starts one in process: the run's state home (GATEHOUSE_HOME, set by
 * the global setup) so that no session pointer lands in the real home's index, and `extra` on top.
 */
export function testEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { GATEHOUSE_HOME: process.env.GATEHOUSE_HOME, ...extra };
}

export function tempDir(prefix = 'gh-test-'): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)));
}
