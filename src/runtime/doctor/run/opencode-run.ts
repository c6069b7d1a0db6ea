// Finds the pinned OpenCode CLI and runs `opencode run` once against a stub
// OpenAI-compatible provider declared in the project's opencode.json, with its own HOME.
// The first run in a project installs OpenCode's plugin runtime and the provider package
// from the npm registry (into .opencode/ and the home's cache).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inheritedEnv, runAgentProcess, spawnHook, type AgentProcessRun, type RunnerOptions } from './agent-process.js';
import { cachedAgentBinary } from '../tested-agents.js';
import type { ChatRequest } from '../stub/openai-chat.js';

/** The `opencode` entry point, or null if it is not installed. */
export function opencodeBinary(): string | null {
  return cachedAgentBinary('opencode');
}

/** OpenCode's main conversation, as opposed to its side calls (the title generator). */
export function isOpencodeTurn(req: ChatRequest): boolean {
  const first = req.body?.messages?.[0];
  return first?.role === 'system' && typeof first.content === 'string' && first.content.startsWith('You are opencode');
}

/**
 * Declares the stub as the project's provider and model. With its `$schema` named: OpenCode
 * adds one to a project config that lacks it, a change the scope check would report.
 */
export function writeOpencodeConfig(project: string, baseUrl: string): void {
  writeFileSync(
    join(project, 'opencode.json'),
    JSON.stringify({
      $schema: 'https://opencode.ai/config.json',
      provider: { stub: { npm: '@ai-sdk/openai-compatible', name: 'stub', options: { baseURL: baseUrl, apiKey: 'test' }, models: { m: { name: 'm' } } } },
      model: 'stub/m',
    }),
  );
}

/** Runs `opencode run <prompt>` once. */
export async function runOpencode(opts: RunnerOptions & { cwd: string; prompt: string; home: string; timeoutMs?: number }): Promise<AgentProcessRun> {
  const bin = opts.bin ?? opencodeBinary();
  if (bin === null) throw new Error('OpenCode not found; install it into the agent cache (node scripts/install-agents.mjs).');
  return runAgentProcess(bin, ['run', opts.prompt], { cwd: opts.cwd, env: { ...inheritedEnv(), HOME: opts.home }, timeoutMs: opts.timeoutMs ?? 120_000, ...spawnHook(opts) });
}
