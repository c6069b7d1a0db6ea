// Parses Claude Code's hook stdin into the core's agent-neutral event, mapping
// Claude's own tool names to tool kinds in one table.
import type { GateEvent } from '../../core/event.js';
import type { Result } from '../../core/result.js';
import { parseClaudeShapedEvent, SHELL_VIEW, type ToolTable } from '../shaped/event.js';

/** Claude Code's tool names and what each one does, as far as the gates care. */
export const CLAUDE_TOOL_KINDS: ToolTable = {
  Write: { kind: 'write', pathKey: 'file_path', view: { kind: 'write', path: 'file_path', content: 'content' } },
  Edit: { kind: 'write', pathKey: 'file_path', view: { kind: 'edit', path: 'file_path', old: 'old_string', new: 'new_string', all: 'replace_all' } },
  MultiEdit: { kind: 'write', pathKey: 'file_path', view: { kind: 'edit', path: 'file_path', edits: 'edits', old: 'old_string', new: 'new_string' } },
  NotebookEdit: { kind: 'write', pathKey: 'notebook_path', view: { kind: 'edit', path: 'notebook_path', new: 'new_source', mode: 'edit_mode', unit: 'cell' } },
  Bash: { kind: 'shell', view: SHELL_VIEW },
  Read: { kind: 'read', view: { kind: 'read', lead: 'file_path' } },
  Glob: { kind: 'read', view: { kind: 'read', lead: 'pattern' } },
  Grep: { kind: 'read', view: { kind: 'read', lead: 'pattern' } },
  LS: { kind: 'read', view: { kind: 'read', lead: 'path' } },
  NotebookRead: { kind: 'read', view: { kind: 'read', lead: 'notebook_path' } },
  WebFetch: { kind: 'read', view: { kind: 'fetch', lead: 'url' } },
  WebSearch: { kind: 'read', view: { kind: 'fetch', lead: 'query' } },
};

/** The write tools, as the exact-name matcher Claude Code uses for PreToolUse. */
export const CLAUDE_WRITE_MATCHER = 'Write|Edit|MultiEdit|NotebookEdit';

/** Parses one Claude Code hook payload. */
export function parseClaudeEvent(eventName: string, input: unknown, fallbackCwd: string): Result<GateEvent> {
  return parseClaudeShapedEvent(CLAUDE_TOOL_KINDS, eventName, input, fallbackCwd);
}
