// Finds the pinned Claude Code binary and runs it once in print mode against a stub model,
// isolated from the real user's config, returning its exit and its stream-json messages.
import { inheritedEnv, runAgentProcess, spawnHook, type AgentProcessRun } from './agent-process.js';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { cachedAgentBinary } from '../tested-agents.js';
import type { RunnerOptions } from './agent-process.js';
import { join } from 'node:path';

/** Long enough for a few scripted turns (one run takes about 1 s); short enough that a hang fails fast. */
const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * The path of the Claude Code binary, or null if it is not installed.
 *
 * @example
 * describe.skipIf(!claudeBinary())('against the real Claude Code', () => { … });
 */
export function claudeBinary(): string | null {
  const fromEnv = process.env.GATEHOUSE_CLAUDE_BIN;
  if (fromEnv === undefined || fromEnv === '') return cachedAgentBinary('claude');
  return existsSync(fromEnv) ? fromEnv : null;
}

type PermissionMode = 'default' | 'acceptEdits' | 'bypassPermissions' | 'dontAsk' | 'plan';

export interface RunClaudeOptions extends RunnerOptions {
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
interface StreamMessage {
  type: string;
  subtype?: string;
  [key: string]: unknown;
}

export interface ClaudeRun extends AgentProcessRun {
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

/**
 * Claude Code's environment against the stub at `url`: its own HOME and XDG folders, a private
 * temp folder (its per-uid folder and sockets must be 0700 and short), a stub key, no other traffic.
 */
export function claudeStubEnv(home: string, tmp: string, url: string): Record<string, string> {
  return {
    ...inheritedEnv(),
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    TMPDIR: tmp,
    CLAUDE_CODE_TMPDIR: tmp,
    ANTHROPIC_BASE_URL: url,
    ANTHROPIC_API_KEY: 'test',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    // bypassPermissions refuses to start as root without it.
    IS_SANDBOX: '1',
  };
}

/**
 * Runs `claude -p <prompt> --output-format stream-json --verbose` once and waits for it to exit.
 *
 * @example
 * const run = await runClaude({ cwd: project.dir, prompt: 'write hello.txt', model: stub });
 * expect(run.exitCode).toBe(0);
 */
export async function runClaude(opts: RunClaudeOptions): Promise<ClaudeRun> {
  const bin = opts.bin ?? claudeBinary();
  if (bin === null) throw new Error('Claude Code binary not found; set GATEHOUSE_CLAUDE_BIN or install it into the agent cache.');

  const scratch = mkdtempSync(join(opts.scratchParent ?? tmpdir(), 'gh-claude-'));
  const home = opts.home ?? join(scratch, 'home');
  // Claude Code's own temp dir (per-uid folder, messaging sockets) must be private (0700) and short.
  const ccTmp = join(scratch, 'tmp');
  mkdirSync(home, { recursive: true });
  mkdirSync(ccTmp, { mode: 0o700 });

  const env: Record<string, string> = {
    ...claudeStubEnv(home, ccTmp, opts.model.url),
    ...opts.env,
  };

  const args = ['-p', opts.prompt, '--output-format', 'stream-json', '--verbose', '--permission-mode', opts.permissionMode ?? 'bypassPermissions', ...(opts.args ?? [])];

  try {
    const run = await runAgentProcess(bin, args, { cwd: opts.cwd, env, timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS, ...spawnHook(opts) });
    return { ...run, messages: parseLines(run.stdout) };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
