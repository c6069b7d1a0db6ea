// Parses Gemini CLI's hook stdin (`tool_name`, `tool_input`, `cwd`; events BeforeTool,
// AfterTool, AfterAgent) with Gemini's tool names mapped to the core's kinds in one table.
import type { GateEvent } from '../../core/event.js';
import { fail, type Result } from '../../core/result.js';
import { parseClaudeShapedEvent, SHELL_VIEW, type ToolTable } from '../shaped/event.js';
import { isRecord } from '../../core/is-record.js';

/** Gemini CLI's tool names and what each one does, as far as the gates care. */
const GEMINI_TOOL_KINDS: ToolTable = {
  write_file: { kind: 'write', pathKey: 'file_path', view: { kind: 'write', path: 'file_path', content: 'content' } },
  replace: { kind: 'write', pathKey: 'file_path', view: { kind: 'edit', path: 'file_path', old: 'old_string', new: 'new_string' } },
  run_shell_command: { kind: 'shell', view: SHELL_VIEW },
  read_file: { kind: 'read', view: { kind: 'read', lead: 'absolute_path' } },
  read_many_files: { kind: 'read' },
  list_directory: { kind: 'read', view: { kind: 'read', lead: 'path' } },
  glob: { kind: 'read', view: { kind: 'read', lead: 'pattern' } },
  search_file_content: { kind: 'read', view: { kind: 'read', lead: 'pattern' } },
  web_fetch: { kind: 'read', view: { kind: 'fetch', lead: 'prompt' } },
  google_web_search: { kind: 'read', view: { kind: 'fetch', lead: 'query' } },
};

/** Gemini's end-of-turn event: AfterAgent, where a deny makes the agent retry. */
export const GEMINI_STOP_EVENTS: readonly string[] = ['AfterAgent'];

/** The write tools, as a BeforeTool matcher. */
export const GEMINI_WRITE_MATCHER = 'write_file|replace';

/** Gemini's event names and the Claude-shaped events they correspond to. */
const EVENT_NAMES: Readonly<Record<string, string>> = { BeforeTool: 'PreToolUse', AfterTool: 'PostToolUse', AfterAgent: 'Stop' };

/**
 * Parses one Gemini CLI hook payload. AfterAgent carries the final answer as
 * `prompt_response`; Gemini's transcript is not Claude Code's format, so the
 * transcript-reading verifiers get none (they skip, they do not misread).
 */
export function parseGeminiEvent(eventName: string, input: unknown, fallbackCwd: string): Result<GateEvent> {
  const shaped = EVENT_NAMES[eventName];
  if (shaped === undefined) return fail(`event ${eventName} is not one Gatehouse gates`);
  if (!isRecord(input)) return fail('hook input is not a JSON object');
  const adapted = shaped === 'Stop' ? { ...input, last_assistant_message: input['prompt_response'] } : input;
  return parseClaudeShapedEvent(GEMINI_TOOL_KINDS, shaped, adapted, fallbackCwd, false);
}
