// The one list of agents Gatehouse can gate, as the hook-time half of each adapter (parse +
// output), kept apart from rendering so the hook bundle loads no settings-editing code.
import type { GateEvent } from '../core/event.js';
import type { Result } from '../core/result.js';
import type { Verdict } from '../core/verdict.js';
import type { HookOutput } from './adapter.js';
import { CLAUDE_SHAPED_STOP_EVENTS } from './shaped/event.js';
import { parseClaudeEvent } from './claude/event.js';
import { claudeOutput } from './claude/output.js';
import { parseQwenEvent } from './qwen/event.js';
import { qwenOutput } from './qwen/output.js';
import { parseSdkEvent } from './claude-sdk/event.js';
import { sdkOutput } from './claude-sdk/output.js';
import { GEMINI_STOP_EVENTS, parseGeminiEvent } from './gemini/event.js';
import { geminiOutput } from './gemini/output.js';
import { COPILOT_STOP_EVENTS, parseCopilotEvent } from './copilot/event.js';
import { copilotOutput } from './copilot/output.js';
import { CURSOR_STOP_EVENTS, parseCursorEvent } from './cursor/event.js';
import { cursorOutput } from './cursor/output.js';
import { OPENCODE_STOP_EVENTS, parseOpencodeEvent } from './opencode/event.js';
import { opencodeOutput } from './opencode/output.js';
import { parseCodexEvent } from './codex/event.js';
import { codexOutput } from './codex/output.js';

/** What the hook needs from an adapter. */
export interface HookAdapter {
  parseEvent(eventName: string, input: unknown, fallbackCwd: string): Result<GateEvent>;
  output(event: GateEvent['kind'], verdict: Verdict): HookOutput;
  /** The agent's end-of-turn event names (those parseEvent reads as a stop); empty when it has no stop surface. */
  stopEvents: readonly string[];
}

/**
 * Every agent with an adapter. The full adapters (registry.ts) are keyed by {@link AgentName},
 * so an agent added here and not there, or there and not here, does not compile.
 */
const HOOK_ADAPTERS = {
  claude: { parseEvent: parseClaudeEvent, output: claudeOutput, stopEvents: CLAUDE_SHAPED_STOP_EVENTS },
  qwen: { parseEvent: parseQwenEvent, output: qwenOutput, stopEvents: CLAUDE_SHAPED_STOP_EVENTS },
  'claude-sdk': { parseEvent: parseSdkEvent, output: sdkOutput, stopEvents: CLAUDE_SHAPED_STOP_EVENTS },
  gemini: { parseEvent: parseGeminiEvent, output: geminiOutput, stopEvents: GEMINI_STOP_EVENTS },
  copilot: { parseEvent: parseCopilotEvent, output: copilotOutput, stopEvents: COPILOT_STOP_EVENTS },
  cursor: { parseEvent: parseCursorEvent, output: cursorOutput, stopEvents: CURSOR_STOP_EVENTS },
  opencode: { parseEvent: parseOpencodeEvent, output: opencodeOutput, stopEvents: OPENCODE_STOP_EVENTS },
  codex: { parseEvent: parseCodexEvent, output: codexOutput, stopEvents: CLAUDE_SHAPED_STOP_EVENTS },
} as const satisfies Readonly<Record<string, HookAdapter>>;

/** The name of an agent with an adapter. */
export type AgentName = keyof typeof HOOK_ADAPTERS;

/** Names of the agents with an adapter, in the order they are declared. */
export const AGENT_NAMES = Object.keys(HOOK_ADAPTERS) as readonly AgentName[];

/** The hook-time adapter for an agent, or undefined for an agent with no hook surface. */
export function hookAdapter(agent: string): HookAdapter | undefined {
  return Object.hasOwn(HOOK_ADAPTERS, agent) ? HOOK_ADAPTERS[agent as AgentName] : undefined;
}
