// Parses Qwen Code's hook stdin (Claude-shaped: `tool_name`, `tool_input`, `cwd`) with
// Qwen's own tool names mapped to the core's kinds in one table.
import type { GateEvent } from '../../core/event.js';
import type { Result } from '../../core/result.js';
import { parseClaudeShapedEvent, type ToolTable } from '../shaped/event.js';

/** Qwen Code's tool names (a Gemini CLI fork) and what each one does, as far as the gates care. */
export const QWEN_TOOL_KINDS: ToolTable = {
  write_file: { kind: 'write', pathKey: 'file_path' },
  edit: { kind: 'write', pathKey: 'file_path' },
  replace: { kind: 'write', pathKey: 'file_path' },
  run_shell_command: { kind: 'shell' },
  read_file: { kind: 'read' },
  read_many_files: { kind: 'read' },
  list_directory: { kind: 'read' },
  glob: { kind: 'read' },
  grep_search: { kind: 'read' },
  web_fetch: { kind: 'read' },
  web_search: { kind: 'read' },
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
