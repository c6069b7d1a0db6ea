// The approval summary of a call to one of Claude Code's tools, as its adapter's view shows it.
import { summarizeCall } from '../../src/core/approvals/summary.js';
import { resolveView } from '../../src/core/tool-view.js';
import { CLAUDE_TOOL_KINDS } from '../../src/adapters/claude/event.js';

/** `summarizeCall` for a Claude Code tool, with the view Claude Code's tool table declares. */
export function claudeSummary(tool: string, input: unknown): string {
  return summarizeCall(tool, resolveView(CLAUDE_TOOL_KINDS[tool]?.view, input));
}
