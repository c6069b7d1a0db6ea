// Finds the pinned OpenCode CLI and runs `opencode run` once against a stub
// OpenAI-compatible provider declared in the project's opencode.json, with its own HOME.
// The first run in a project installs OpenCode's plugin runtime and the provider package
// from the npm registry (into .opencode/ and the home's cache).
import { existsSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { inheritedEnv, runAgentProcess, type AgentProcessRun } from './agent-process.js';
import type { ChatRequest } from './openai-chat.js';

/** The OpenCode version the end-to-end tests pin (see HOOK-CONTRACTS.md). */
const OPENCODE_VERSION = '1.18.33';

/** The `opencode` entry point, or null if it is not installed. */
export function opencodeBinary(): string | null {
  const cache = process.env.GATEHOUSE_AGENT_CACHE ?? join(homedir(), '.cache', 'gatehouse-agents');
  const path = join(cache, `opencode@${OPENCODE_VERSION}`, 'node_modules', '.bin', 'opencode');
  return existsSync(path) ? path : null;
}

/** OpenCode's main conversation, as opposed to its side calls (the title generator). */
export function isOpencodeTurn(req: ChatRequest): boolean {
  const first = req.body?.messages?.[0];
  return first?.role === 'system' && typeof first.content === 'string' && first.content.startsWith('You are opencode');
}

/** Declares the stub as the project's provider and model. */
export function writeOpencodeConfig(project: string, baseUrl: string): void {
  writeFileSync(
    join(project, 'opencode.json'),
    JSON.stringify({ provider: { stub: { npm: '@ai-sdk/openai-compatible', name: 'stub', options: { baseURL: baseUrl, apiKey: 'test' }, models: { m: { name: 'm' } } } }, model: 'stub/m' }),
  );
}

/** Runs `opencode run <prompt>` once. */
export async function runOpencode(opts: { cwd: string; prompt: string; home: string; timeoutMs?: number }): Promise<AgentProcessRun> {
  const bin = opencodeBinary();
  if (bin === null) throw new Error('OpenCode not found; install it into the agent cache (node scripts/install-agents.mjs).');
  return runAgentProcess(bin, ['run', opts.prompt], { cwd: opts.cwd, env: { ...inheritedEnv(), HOME: opts.home }, timeoutMs: opts.timeoutMs ?? 120_000 });
}
