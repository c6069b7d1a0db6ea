// Finds the pinned Claude Code binary and runs it once in print mode against a stub model,
// isolated from the real user's config, returning its exit and its stream-json messages.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';

/** The Claude Code version the end-to-end tests pin (see HOOK-CONTRACTS.md). */
export const CLAUDE_CODE_VERSION = '2.1.328';

/** Long enough for a few scripted turns (one run takes about 1 s); short enough that a hang fails fast. */
const DEFAULT_TIMEOUT_MS = 30_000;

/** Time between SIGTERM and SIGKILL when a run overstays its timeout. */
const KILL_GRACE_MS = 2_000;

/** Variables passed through from the test process; everything else is left out so nothing leaks in. */
const INHERITED_ENV = ['PATH', 'LANG', 'LC_ALL', 'TZ'] as const;

/**
 * The path of the Claude Code binary, or null if it is not installed.
 *
 * @example
 * describe.skipIf(!claudeBinary())('against the real Claude Code', () => { … });
 */
export function claudeBinary(): string | null {
  const fromEnv = process.env.GATEHOUSE_CLAUDE_BIN;
  const cache = process.env.GATEHOUSE_AGENT_CACHE ?? join(homedir(), '.cache', 'gatehouse-agents');
  const path =
    fromEnv !== undefined && fromEnv !== ''
      ? fromEnv
      : join(cache, `claude-code@${CLAUDE_CODE_VERSION}`, 'node_modules', '@anthropic-ai', 'claude-code-linux-x64', 'claude');
  return existsSync(path) ? path : null;
}

export type PermissionMode = 'default' | 'acceptEdits' | 'bypassPermissions' | 'dontAsk' | 'plan';

export interface RunClaudeOptions {
  /** The project folder Claude Code runs in. */
  cwd: string;
  prompt: string;
  /** The stub model (or anything with a base URL) to talk to. */
  model: { url: string };
  /** Extra environment, applied last. */
  env?: Record<string, string>;
  timeoutMs?: number;
  /** Defaults to bypassPermissions, so only hooks stand between the model and the disk. */
  permissionMode?: PermissionMode;
  /** Extra CLI arguments, appended after the harness's own. */
  args?: string[];
  /** A HOME to use and keep (to read transcripts afterwards); by default a fresh one, removed after. */
  home?: string;
}

/** One line of `--output-format stream-json`. */
export interface StreamMessage {
  type: string;
  subtype?: string;
  [key: string]: unknown;
}

export interface ClaudeRun {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  durationMs: number;
  stdout: string;
  stderr: string;
  /** The parsed stream-json lines; lines that are not JSON objects are left out. */
  messages: StreamMessage[];
}

function parseLines(stdout: string): StreamMessage[] {
  return stdout.split('\n').flatMap((line) => {
    if (!line.startsWith('{')) return [];
    try {
      const value: unknown = JSON.parse(line);
      return typeof value === 'object' && value !== null && 'type' in value ? [value as StreamMessage] : [];
    } catch {
      return [];
    }
  });
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
 * Runs `claude -p <prompt> --output-format stream-json --verbose` once and waits for it to exit.
 *
 * @example
 * const run = await runClaude({ cwd: project.dir, prompt: 'write hello.txt', model: stub });
 * expect(run.exitCode).toBe(0);
 */
export async function runClaude(opts: RunClaudeOptions): Promise<ClaudeRun> {
  const bin = claudeBinary();
  if (bin === null) throw new Error('Claude Code binary not found; set GATEHOUSE_CLAUDE_BIN or install it into the agent cache.');

  const scratch = mkdtempSync(join(tmpdir(), 'gh-claude-'));
  const home = opts.home ?? join(scratch, 'home');
  // Claude Code's own temp dir (per-uid folder, messaging sockets) must be private (0700) and short.
  const ccTmp = join(scratch, 'tmp');
  mkdirSync(home, { recursive: true });
  mkdirSync(ccTmp, { mode: 0o700 });

  const env: Record<string, string> = {};
  for (const name of INHERITED_ENV) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  Object.assign(env, {
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    TMPDIR: ccTmp,
    CLAUDE_CODE_TMPDIR: ccTmp,
    ANTHROPIC_BASE_URL: opts.model.url,
    ANTHROPIC_API_KEY: 'test',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    // bypassPermissions refuses to start as root without it.
    IS_SANDBOX: '1',
    ...opts.env,
  });

  const args = [
    '-p',
    opts.prompt,
    '--output-format',
    'stream-json',
    '--verbose',
    '--permission-mode',
    opts.permissionMode ?? 'bypassPermissions',
    ...(opts.args ?? []),
  ];

  const started = Date.now();
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  // Its own process group, so a timeout also ends the hooks it started.
  const child = spawn(bin, args, { cwd: opts.cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
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
  }, timeoutMs);

  try {
    const [exitCode, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
      child.once('error', reject);
      // 'close' rather than 'exit': wait until stdout and stderr are drained.
      child.once('close', (code, sig) => resolve([code, sig]));
    });
    return { exitCode, signal, timedOut, durationMs: Date.now() - started, stdout, stderr, messages: parseLines(stdout) };
  } finally {
    clearTimeout(timeout);
    clearTimeout(killTimer);
    rmSync(scratch, { recursive: true, force: true });
  }
}
