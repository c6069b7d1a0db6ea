// Finds the pinned Qwen Code CLI and runs it once in headless mode against a stub
// OpenAI-compatible model, isolated from the real user's config.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inheritedEnv, runAgentProcess, spawnHook, type AgentProcessRun, type RunnerOptions } from './agent-process.js';
import { cachedAgentBinary } from '../tested-agents.js';
import type { ChatRequest } from '../stub/openai-chat.js';

/** A run takes 5-15 s here (Node start-up of a large bundle, two or three turns). */
const DEFAULT_TIMEOUT_MS = 60_000;

/** Qwen Code's main conversation, as opposed to its side calls (memory extraction and the like). */
export function isQwenTurn(req: ChatRequest): boolean {
  const first = req.body?.messages?.[0];
  return first?.role === 'system' && typeof first.content === 'string' && first.content.startsWith('You are Qwen Code');
}

/** The `qwen` entry point, or null if it is not installed. */
export function qwenBinary(): string | null {
  return cachedAgentBinary('qwen');
}

/**
 * Runs `qwen -p <prompt> --yolo --output-format stream-json` once: `--yolo` so that only
 * hooks stand between the model and the disk.
 */
export async function runQwen(opts: RunnerOptions & { cwd: string; prompt: string; model: { url: string }; timeoutMs?: number }): Promise<AgentProcessRun> {
  const bin = opts.bin ?? qwenBinary();
  if (bin === null) throw new Error('Qwen Code not found; install it into the agent cache (node scripts/install-agents.mjs).');
  const scratch = mkdtempSync(join(opts.scratchParent ?? tmpdir(), 'gh-qwen-'));
  const home = join(scratch, 'home');
  mkdirSync(join(home, '.qwen'), { recursive: true });
  writeFileSync(join(home, '.qwen', 'settings.json'), JSON.stringify({ security: { auth: { selectedType: 'openai' } } }));
  const env = {
    ...inheritedEnv(),
    HOME: home,
    TMPDIR: scratch,
    OPENAI_API_KEY: 'test',
    OPENAI_BASE_URL: opts.model.url,
    OPENAI_MODEL: 'qwen3-coder-plus',
    QWEN_CODE_SUPPRESS_YOLO_WARNING: '1',
  };
  try {
    return await runAgentProcess(bin, ['-p', opts.prompt, '--yolo', '--output-format', 'stream-json'], { cwd: opts.cwd, env, timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS, ...spawnHook(opts) });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
