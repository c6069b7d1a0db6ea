// Parses Claude Code's hook stdin into the core's agent-neutral event, mapping
// Claude's own tool names to tool kinds in one table.
import type { GateEvent } from '../../core/event.js';
import type { Result } from '../../core/result.js';
import { parseClaudeShapedEvent, type ToolTable } from '../shaped/event.js';

/** Claude Code's tool names and what each one does, as far as the gates care. */
export const CLAUDE_TOOL_KINDS: ToolTable = {
  Write: { kind: 'write', pathKey: 'file_path' },
  Edit: { kind: 'write', pathKey: 'file_path' },
  MultiEdit: { kind: 'write', pathKey: 'file_path' },
  NotebookEdit: { kind: 'write', pathKey: 'notebook_path' },
  Bash: { kind: 'shell' },
  Read: { kind: 'read' },
  Glob: { kind: 'read' },
  Grep: { kind: 'read' },
  LS: { kind: 'read' },
  NotebookRead: { kind: 'read' },
  WebFetch: { kind: 'read' },
  WebSearch: { kind: 'read' },
};

/** The write tools, as the exact-name matcher Claude Code uses for PreToolUse. */
export const CLAUDE_WRITE_MATCHER = 'Write|Edit|MultiEdit|NotebookEdit';

/** Parses one Claude Code hook payload. */
export function parseClaudeEvent(eventName: string, input: unknown, fallbackCwd: string): Result<GateEvent> {
  return parseClaudeShapedEvent(CLAUDE_TOOL_KINDS, eventName, input, fallbackCwd);
}

