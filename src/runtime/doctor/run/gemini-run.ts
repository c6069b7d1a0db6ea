// Finds the pinned Gemini CLI and runs it once in headless mode against a stub Gemini API,
// isolated from the real user's config (its own GEMINI_CLI_HOME).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inheritedEnv, runAgentProcess, spawnHook, type AgentProcessRun, type RunnerOptions } from './agent-process.js';
import { cachedAgentBinary } from '../tested-agents.js';

/** The `gemini` entry point, or null if it is not installed. */
export function geminiBinary(): string | null {
  return cachedAgentBinary('gemini');
}

/** A Gemini home with API-key auth selected (else it stops at "Invalid auth method"). */
export function makeGeminiHome(dir: string): string {
  mkdirSync(join(dir, '.gemini'), { recursive: true });
  writeFileSync(join(dir, '.gemini', 'settings.json'), JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }));
  return dir;
}

/**
 * Runs `gemini -p <prompt> --yolo` once with `home` as GEMINI_CLI_HOME. No trust override is
 * passed: the folder must be trusted the way a user's would be (trustedFolders.json).
 */
export async function runGemini(opts: RunnerOptions & { cwd: string; prompt: string; model: { url: string }; home: string; timeoutMs?: number }): Promise<AgentProcessRun> {
  const bin = opts.bin ?? geminiBinary();
  if (bin === null) throw new Error('Gemini CLI not found; install it into the agent cache (node scripts/install-agents.mjs).');
  const env = { ...inheritedEnv(), HOME: opts.home, GEMINI_CLI_HOME: opts.home, GOOGLE_GEMINI_BASE_URL: opts.model.url, GEMINI_API_KEY: 'test' };
  return runAgentProcess(bin, ['-p', opts.prompt, '--yolo', '-m', 'gemini-2.5-pro', '--output-format', 'stream-json'], { cwd: opts.cwd, env, timeoutMs: opts.timeoutMs ?? 60_000, ...spawnHook(opts) });
}
