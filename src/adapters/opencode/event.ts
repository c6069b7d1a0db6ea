// Parses the payload Gatehouse's generated OpenCode plugin sends for `tool.execute.before`
// ({tool, args, cwd}), with OpenCode's tool names mapped to the core's kinds.
import type { GateEvent } from '../../core/event.js';
import { fail, type Result } from '../../core/result.js';
import { parseClaudeShapedEvent, SHELL_VIEW, type ToolTable } from '../shaped/event.js';
import { isRecord } from '../../core/is-record.js';

/** OpenCode's tool names and what each one does, as far as the gates care. */
const OPENCODE_TOOL_KINDS: ToolTable = {
  write: { kind: 'write', pathKey: 'filePath', view: { kind: 'write', path: 'filePath', content: 'content' } },
  edit: { kind: 'write', pathKey: 'filePath', view: { kind: 'edit', path: 'filePath', old: 'oldString', new: 'newString', all: 'replaceAll' } },
  bash: { kind: 'shell', view: SHELL_VIEW },
  read: { kind: 'read', view: { kind: 'read', lead: 'filePath' } },
  glob: { kind: 'read', view: { kind: 'read', lead: 'pattern' } },
  grep: { kind: 'read', view: { kind: 'read', lead: 'pattern' } },
  list: { kind: 'read', view: { kind: 'read', lead: 'path' } },
  webfetch: { kind: 'read', view: { kind: 'fetch', lead: 'url' } },
};

/** The plugin hook the session's plugin calls the gate from. */
export const OPENCODE_EVENT = 'tool.execute.before';

/** None: OpenCode has no blocking end-of-turn surface (only a session.idle event). */
export const OPENCODE_STOP_EVENTS: readonly string[] = [];

/** Parses one call from the plugin. OpenCode has no blocking stop event to parse. */
export function parseOpencodeEvent(eventName: string, input: unknown, fallbackCwd: string): Result<GateEvent> {
  if (eventName !== OPENCODE_EVENT) return fail(`event ${eventName} is not one Gatehouse gates`);
  if (!isRecord(input)) return fail('hook input is not a JSON object');
  return parseClaudeShapedEvent(OPENCODE_TOOL_KINDS, 'PreToolUse', { cwd: input['cwd'], tool_name: input['tool'], tool_input: input['args'] }, fallbackCwd, false);
}
