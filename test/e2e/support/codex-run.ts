// Finds the pinned Codex CLI and runs `codex exec` once against a stub Responses API, isolated
// from the real user's config (its own CODEX_HOME and HOME) and offline (loopback only).
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'smol-toml';
import { inheritedEnv, runAgentProcess, type AgentProcessRun } from './agent-process.js';

/** The Codex CLI version the end-to-end tests pin (see HOOK-CONTRACTS.md). */
const CODEX_CLI_VERSION = '0.171.0';

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
  const cache = process.env.GATEHOUSE_AGENT_CACHE ?? join(homedir(), '.cache', 'gatehouse-agents');
  const path = join(cache, `codex-cli@${CODEX_CLI_VERSION}`, 'node_modules', '@openai', 'codex-linux-x64', 'vendor', 'x86_64-unknown-linux-musl', 'bin', 'codex');
  return existsSync(path) ? path : null;
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
export interface RunCodexOptions {
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
  const bin = codexBinary();
  if (bin === null) throw new Error('Codex CLI not found; install it into the agent cache (node scripts/install-agents.mjs).');
  const scratch = mkdtempSync(join(tmpdir(), 'gh-codex-'));
  const env = { ...inheritedEnv(), HOME: scratch, CODEX_HOME: opts.home, [CODEX_STUB_KEY_ENV]: 'test' };
  const args = ['exec', '--json', '--dangerously-bypass-approvals-and-sandbox', ...(opts.extraArgs ?? []), '--', opts.prompt];
  try {
    return await runAgentProcess(bin, args, { cwd: opts.cwd, env, timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
