// Runs one agent CLI process for an end-to-end test: its own process group (a timeout also
// ends the hooks it started), its own temp folder, output collected, exit awaited after the
// streams drain.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Time between SIGTERM and SIGKILL when a run overstays its timeout. */
const KILL_GRACE_MS = 2_000;

/** Variables passed through from the test process; everything else is left out so nothing leaks in. */
const INHERITED_ENV = ['PATH', 'LANG', 'LC_ALL', 'TZ'] as const;

/** One finished run. */
export interface AgentProcessRun {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  durationMs: number;
  stdout: string;
  stderr: string;
}

/** The inherited part of the environment (see {@link INHERITED_ENV}). */
export function inheritedEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of INHERITED_ENV) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

/**
 * Runs `bin args` with stdin closed and waits for it (killing its group after `timeoutMs`);
 * `onSpawn` learns its pid. Unless `env` names one, the run's TMPDIR is a folder of its own
 * under `scratchParent` (default: the system's temp folder), removed after it: agents leave
 * files in their temp folder (OpenCode a 5.5 MB native library on every run, Copilot its
 * compile cache), which would otherwise pile up in the system's.
 */
export async function runAgentProcess(
  bin: string,
  args: string[],
  opts: { cwd: string; env: Record<string, string>; timeoutMs: number; onSpawn?: (pid: number) => void; keepEnv?: Record<string, string>; scratchParent?: string },
): Promise<AgentProcessRun> {
  const ownTmp = opts.env['TMPDIR'] === undefined ? mkdtempSync(join(opts.scratchParent ?? tmpdir(), 'gh-agent-tmp-')) : null;
  try {
    return await runInGroup(bin, args, { ...opts, env: { ...opts.env, ...(ownTmp === null ? {} : { TMPDIR: ownTmp }), ...opts.keepEnv } });
  } finally {
    if (ownTmp !== null) rmSync(ownTmp, { recursive: true, force: true });
  }
}

async function runInGroup(bin: string, args: string[], opts: { cwd: string; env: Record<string, string>; timeoutMs: number; onSpawn?: (pid: number) => void }): Promise<AgentProcessRun> {
  const started = Date.now();
  const child = spawn(bin, args, { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  if (child.pid !== undefined) opts.onSpawn?.(child.pid);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
  child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  let timedOut = false;
  let killTimer: NodeJS.Timeout | undefined;
  const timeout = setTimeout(() => {
    timedOut = true;
    killGroup(child.pid, 'SIGTERM');
    killTimer = setTimeout(() => killGroup(child.pid, 'SIGKILL'), KILL_GRACE_MS);
  }, opts.timeoutMs);
  try {
    const [exitCode, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
      child.once('error', reject);
      // 'close' rather than 'exit': wait until stdout and stderr are drained.
      child.once('close', (code, sig) => resolve([code, sig]));
    });
    return { exitCode, signal, timedOut, durationMs: Date.now() - started, stdout, stderr };
  } finally {
    clearTimeout(timeout);
    clearTimeout(killTimer);
  }
}

/** What every agent runner takes besides its own options. */
export interface RunnerOptions {
  /** The binary to run; by default the pinned one in the agent cache. */
  bin?: string;
  /** Where the runner makes its scratch folders; by default the system temp dir. */
  scratchParent?: string;
  /** Learns the agent's pid (its process group), e.g. to end it on Ctrl-C. */
  onSpawn?: (pid: number) => void;
  /** Variables of the caller's own environment the run keeps, over the runner's (doctor: the agent's hook off-switches). */
  keepEnv?: Record<string, string>;
}

/** The `onSpawn`, `keepEnv` and `scratchParent` of runner options, in the shape {@link runAgentProcess} takes. */
export function spawnHook(opts: RunnerOptions): { onSpawn?: (pid: number) => void; keepEnv?: Record<string, string>; scratchParent?: string } {
  return {
    ...(opts.onSpawn ? { onSpawn: opts.onSpawn } : {}),
    ...(opts.keepEnv ? { keepEnv: opts.keepEnv } : {}),
    ...(opts.scratchParent !== undefined ? { scratchParent: opts.scratchParent } : {}),
  };
}
