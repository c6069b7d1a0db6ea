// Finds the pinned Copilot CLI and runs it once in prompt mode against a stub
// OpenAI-compatible provider, with its own COPILOT_HOME and no GitHub login.
import { inheritedEnv, runAgentProcess, spawnHook, type AgentProcessRun, type RunnerOptions } from './agent-process.js';
import { cachedAgentBinary } from '../tested-agents.js';
import type { ChatRequest } from '../stub/openai-chat.js';

/** The `copilot` entry point, or null if it is not installed. */
export function copilotBinary(): string | null {
  return cachedAgentBinary('copilot');
}

/** Copilot's main conversation, as opposed to side calls. */
export function isCopilotTurn(req: ChatRequest): boolean {
  const first = req.body?.messages?.[0];
  return first?.role === 'system' && typeof first.content === 'string' && first.content.startsWith('You are the GitHub Copilot CLI');
}

/**
 * Runs `copilot -p <prompt> --allow-all-tools` once with `home` as COPILOT_HOME. No folder
 * trust override: the folder must be trusted the way a user's would be (config.json).
 */
export async function runCopilot(opts: RunnerOptions & { cwd: string; prompt: string; model: { url: string }; home: string; timeoutMs?: number }): Promise<AgentProcessRun> {
  const bin = opts.bin ?? copilotBinary();
  if (bin === null) throw new Error('Copilot CLI not found; install it into the agent cache (node scripts/install-agents.mjs).');
  const env = {
    ...inheritedEnv(),
    HOME: opts.home,
    COPILOT_HOME: opts.home,
    COPILOT_PROVIDER_BASE_URL: opts.model.url,
    COPILOT_PROVIDER_API_KEY: 'test',
    COPILOT_MODEL: 'gpt-4.1',
    COPILOT_AUTO_UPDATE: 'false',
  };
  return runAgentProcess(bin, ['-p', opts.prompt, '--allow-all-tools', '--output-format', 'json'], { cwd: opts.cwd, env, timeoutMs: opts.timeoutMs ?? 90_000, ...spawnHook(opts) });
}
