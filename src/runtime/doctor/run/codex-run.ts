// Finds the pinned Codex CLI and runs `codex exec` once against a stub Responses API, isolated
// from the real user's config (its own CODEX_HOME and HOME) and offline (loopback only).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { cachedAgentBinary } from '../tested-agents.js';
import { join } from 'node:path';
import { stringify } from 'smol-toml';
import { inheritedEnv, runAgentProcess, spawnHook, type AgentProcessRun, type RunnerOptions } from './agent-process.js';

/**
 * The model named in config.toml. It must be in Codex's bundled model catalog: for an unknown
 * name Codex warns "Model metadata … not found" and leaves the apply_patch tool out.
 */
const CODEX_STUB_MODEL = 'gpt-5.5';

/** The variable the stub provider reads its API key from (any value will do). */
export const CODEX_STUB_KEY_ENV = 'GATEHOUSE_STUB_KEY';

/** A run takes well under a second here; the margin covers a loaded CI machine. */
const DEFAULT_TIMEOUT_MS = 60_000;

/** The native `codex` binary in the agent cache, or null if it is not installed. */
export function codexBinary(): string | null {
  return cachedAgentBinary('codex');
}

/**
 * Makes `dir` a CODEX_HOME whose `config.toml` selects the stub at `modelUrl` (ending in `/v1`).
 * Plain TOML, root keys first, so a later edit can append `[projects."…"]` / `[hooks.state."…"]`
 * tables. Analytics and the plugin sync (a GitHub lookup) are off, so a run stays on loopback.
 */
export function makeCodexHome(dir: string, modelUrl: string): string {
  mkdirSync(dir, { recursive: true });
  const config = {
    model: CODEX_STUB_MODEL,
    model_provider: 'stub',
    check_for_update_on_startup: false,
    analytics: { enabled: false },
    features: { plugins: false },
    model_providers: { stub: { name: 'stub', base_url: modelUrl, wire_api: 'responses', env_key: CODEX_STUB_KEY_ENV } },
  };
  writeFileSync(join(dir, 'config.toml'), `${stringify(config)}\n`);
  return dir;
}

/** What {@link runCodex} needs: the project, the prompt, and a home from {@link makeCodexHome}. */
export interface RunCodexOptions extends RunnerOptions {
  cwd: string;
  prompt: string;
  /** The CODEX_HOME. */
  home: string;
  timeoutMs?: number;
  /** Flags placed before the prompt, e.g. `['--dangerously-bypass-hook-trust']` in experiments. */
  extraArgs?: string[];
}

/**
 * Runs `codex exec --json --dangerously-bypass-approvals-and-sandbox <prompt>` once with stdin
 * closed (else it waits for more input). No hook-trust override: hooks must be trusted the way a
 * user's would be, in `$CODEX_HOME/config.toml`.
 */
export async function runCodex(opts: RunCodexOptions): Promise<AgentProcessRun> {
  const bin = opts.bin ?? codexBinary();
  if (bin === null) throw new Error('Codex CLI not found; install it into the agent cache (node scripts/install-agents.mjs).');
  const scratch = mkdtempSync(join(opts.scratchParent ?? tmpdir(), 'gh-codex-'));
  const env = { ...inheritedEnv(), HOME: scratch, CODEX_HOME: opts.home, [CODEX_STUB_KEY_ENV]: 'test' };
  const args = ['exec', '--json', '--dangerously-bypass-approvals-and-sandbox', ...(opts.extraArgs ?? []), '--', opts.prompt];
  try {
    return await runAgentProcess(bin, args, { cwd: opts.cwd, env, timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS, ...spawnHook(opts) });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
