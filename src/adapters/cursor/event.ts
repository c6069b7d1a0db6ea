// Parses Cursor's hook stdin into the core's event. Cursor names the event in
// `hook_event_name`, gives the workspace in `workspace_roots`, sends shell commands to
// `beforeShellExecution` ({command, cwd}) and other tools to `preToolUse` ({tool_name,
// tool_input}); `stop` carries {status, loop_count}. Facts from Cursor's hook documentation:
// no Cursor binary runs here, so these shapes are checked by contract tests only.
import type { GateEvent } from '../../core/event.js';
import { fail, ok, type Result } from '../../core/result.js';
import { parseClaudeShapedEvent, SHELL_VIEW, type ToolTable } from '../shaped/event.js';
import { isRecord } from '../../core/is-record.js';

/** Cursor's agent tools and what each one does, as far as the gates care. */
const CURSOR_TOOL_KINDS: ToolTable = {
  Write: { kind: 'write', pathKey: 'file_path', view: { kind: 'write', path: 'file_path', content: 'contents' } },
  StrReplace: { kind: 'write', pathKey: 'file_path', view: { kind: 'edit', path: 'file_path', old: 'old_string', new: 'new_string' } },
  Edit: { kind: 'write', pathKey: 'file_path', view: { kind: 'edit', path: 'file_path', old: 'old_string', new: 'new_string' } },
  Delete: { kind: 'write', pathKey: 'file_path' },
  Shell: { kind: 'shell', view: SHELL_VIEW },
  Read: { kind: 'read', view: { kind: 'read', lead: 'file_path' } },
  Grep: { kind: 'read', view: { kind: 'read', lead: 'pattern' } },
  Glob: { kind: 'read', view: { kind: 'read', lead: 'pattern' } },
};

/** Cursor's end-of-turn event, answered with a followup_message to continue. */
export const CURSOR_STOP_EVENTS: readonly string[] = ['stop'];

/** The write tools, as preToolUse matchers (one entry each, as Cursor's examples do). */
export const CURSOR_WRITE_TOOLS = ['Write', 'StrReplace', 'Edit', 'Delete'];

function cwdOf(input: Record<string, unknown>, fallback: string): string {
  if (typeof input['cwd'] === 'string' && input['cwd'] !== '') return input['cwd'];
  const roots = input['workspace_roots'];
  return Array.isArray(roots) && typeof roots[0] === 'string' ? roots[0] : fallback;
}

/** Parses one Cursor hook payload. */
export function parseCursorEvent(eventName: string, input: unknown, fallbackCwd: string): Result<GateEvent> {
  if (!isRecord(input)) return fail('hook input is not a JSON object');
  const cwd = cwdOf(input, fallbackCwd);
  if (eventName === 'beforeShellExecution') {
    if (typeof input['command'] !== 'string') return fail('beforeShellExecution input has no command');
    return ok({ kind: 'pre_tool', tool: 'Shell', toolKind: 'shell', targets: [], input: { command: input['command'] }, cwd, view: { kind: 'shell', command: input['command'] } });
  }
  if (eventName === 'preToolUse') {
    // Some Cursor versions name a file tool's path `path` or `target_file`: accept them as `file_path`.
    const raw = isRecord(input['tool_input']) ? input['tool_input'] : {};
    const path = raw['file_path'] ?? raw['path'] ?? raw['target_file'];
    const toolInput = typeof path === 'string' ? { ...raw, file_path: path } : raw;
    return parseClaudeShapedEvent(CURSOR_TOOL_KINDS, 'PreToolUse', { tool_name: input['tool_name'], tool_input: toolInput, cwd }, fallbackCwd, false);
  }
  if (CURSOR_STOP_EVENTS.includes(eventName)) return ok({ kind: 'stop', cwd, lastMessage: null, transcriptPath: null });
  return fail(`event ${eventName} is not one Gatehouse gates`);
}
