// Parses Copilot CLI's hook stdin (camelCase: `toolName`, `toolArgs`, `cwd`; events
// preToolUse and agentStop), with Copilot's tool names mapped to the core's kinds.
import type { GateEvent } from '../../core/event.js';
import { fail, type Result } from '../../core/result.js';
import { parseClaudeShapedEvent, SHELL_VIEW, type ToolTable } from '../shaped/event.js';
import { isRecord } from '../../core/is-record.js';

/** Copilot CLI's tool names and what each one does, as far as the gates care. */
const COPILOT_TOOL_KINDS: ToolTable = {
  create: { kind: 'write', pathKey: 'path', view: { kind: 'write', path: 'path', content: 'file_text' } },
  edit: { kind: 'write', pathKey: 'path', view: { kind: 'edit', path: 'path', old: 'old_str', new: 'new_str' } },
  bash: { kind: 'shell', view: SHELL_VIEW },
  view: { kind: 'read', view: { kind: 'read', lead: 'path' } },
};

/** Copilot's end-of-turn event (it ignores exit 2 there; see output.ts). */
export const COPILOT_STOP_EVENTS: readonly string[] = ['agentStop'];

/**
 * Parses one Copilot CLI hook payload by renaming its fields to the Claude shape. Its
 * transcript (`events.jsonl`) is not Claude Code's format, so the transcript-reading
 * verifiers get none (they skip, they do not misread).
 */
export function parseCopilotEvent(eventName: string, input: unknown, fallbackCwd: string): Result<GateEvent> {
  if (!isRecord(input)) return fail('hook input is not a JSON object');
  if (eventName === 'preToolUse') {
    return parseClaudeShapedEvent(COPILOT_TOOL_KINDS, 'PreToolUse', { cwd: input['cwd'], tool_name: input['toolName'], tool_input: input['toolArgs'] }, fallbackCwd, false);
  }
  if (COPILOT_STOP_EVENTS.includes(eventName)) return parseClaudeShapedEvent(COPILOT_TOOL_KINDS, 'Stop', { cwd: input['cwd'] }, fallbackCwd, false);
  return fail(`event ${eventName} is not one Gatehouse gates`);
}
