// Parses Qwen Code's hook stdin (Claude-shaped: `tool_name`, `tool_input`, `cwd`) with
// Qwen's own tool names mapped to the core's kinds in one table.
import type { GateEvent } from '../../core/event.js';
import type { Result } from '../../core/result.js';
import { parseClaudeShapedEvent, SHELL_VIEW, type ToolTable } from '../shaped/event.js';

/** Qwen Code's tool names (a Gemini CLI fork) and what each one does, as far as the gates care. */
const QWEN_TOOL_KINDS: ToolTable = {
  write_file: { kind: 'write', pathKey: 'file_path', view: { kind: 'write', path: 'file_path', content: 'content' } },
  edit: { kind: 'write', pathKey: 'file_path', view: { kind: 'edit', path: 'file_path', old: 'old_string', new: 'new_string', all: 'replace_all' } },
  replace: { kind: 'write', pathKey: 'file_path', view: { kind: 'edit', path: 'file_path', old: 'old_string', new: 'new_string' } },
  run_shell_command: { kind: 'shell', view: SHELL_VIEW },
  read_file: { kind: 'read', view: { kind: 'read', lead: 'absolute_path' } },
  read_many_files: { kind: 'read' },
  list_directory: { kind: 'read', view: { kind: 'read', lead: 'path' } },
  glob: { kind: 'read', view: { kind: 'read', lead: 'pattern' } },
  grep_search: { kind: 'read', view: { kind: 'read', lead: 'pattern' } },
  web_fetch: { kind: 'read', view: { kind: 'fetch', lead: 'url' } },
  web_search: { kind: 'read', view: { kind: 'fetch', lead: 'query' } },
};

/** The write tools, as a PreToolUse matcher. */
export const QWEN_WRITE_MATCHER = 'write_file|edit|replace';

/**
 * Parses one Qwen Code hook payload. Its transcript is not Claude Code's format, so the
 * transcript-reading verifiers get none (they skip, they do not misread).
 */
export function parseQwenEvent(eventName: string, input: unknown, fallbackCwd: string): Result<GateEvent> {
  return parseClaudeShapedEvent(QWEN_TOOL_KINDS, eventName, input, fallbackCwd, false);
}
