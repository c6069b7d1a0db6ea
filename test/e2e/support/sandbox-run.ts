// Runs an agent CLI under `gatehouse run --sandbox` for an end-to-end test: the real CLI, the
// real bubblewrap, hooks that reach `gatehouse run` through its socket; the agent's HOME and
// the project are throwaway folders.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI } from '../../support/cli.js';
import { inheritedEnv, runAgentProcess, type AgentProcessRun } from '../../../src/runtime/doctor/run/agent-process.js';

/** True when this machine can sandbox (bwrap with user namespaces): sandbox tests need it. */
export function sandboxAvailable(): boolean {
  const r = spawnSync('bwrap', ['--unshare-user', '--ro-bind', '/', '/', 'true'], { stdio: 'ignore' });
  return r.status === 0;
}

/** One sandboxed run. */
export interface SandboxedRunOptions {
  agent: string;
  worktree: string;
  state: string;
  /** The agent's HOME (made if missing). */
  home: string;
  /** `gatehouse run` flags after `--agent/--worktree/--state-dir` (e.g. `--allow src/**`). */
  flags: string[];
  /** The agent's argv. */
  argv: string[];
  env?: Record<string, string>;
  timeoutMs?: number;
  /** Called with the pid of `gatehouse run` once it is started (a test that kills it). */
  onSpawn?: (pid: number) => void;
}

/** Runs `gatehouse run --sandbox … -- argv` and waits for it. */
export async function runSandboxed(opts: SandboxedRunOptions): Promise<AgentProcessRun> {
  mkdirSync(opts.home, { recursive: true });
  const env = { ...inheritedEnv(), HOME: opts.home, ...opts.env };
  const args = [CLI, 'run', '--sandbox', '--agent', opts.agent, '--worktree', opts.worktree, '--state-dir', opts.state, ...opts.flags, '--', ...opts.argv];
  return runAgentProcess(process.execPath, args, { cwd: opts.worktree, env, timeoutMs: opts.timeoutMs ?? 60_000, ...(opts.onSpawn ? { onSpawn: opts.onSpawn } : {}) });
}

/** A scratch folder for a test's HOME, removed by the returned function. */
export function scratchHome(): { home: string; dispose(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'gh-sbx-home-'));
  return { home: join(dir, 'home'), dispose: () => rmSync(dir, { recursive: true, force: true }) };
}
