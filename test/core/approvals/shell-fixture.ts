// Builds shell analyses by hand, in the shape the shell analyser reports, so the approvals
// tests can state each classifier outcome exactly.
import type { ToolKind } from '../../../src/core/event.js';
import { CLAUDE_TOOL_KINDS } from '../../../src/adapters/claude/event.js';
import type { ShellAnalysis, ShellClass } from '../../../src/core/shell/index.js';

/** One simple command: argv, its class, and whether its words are literal (default true). */
export type Cmd = [argv: string[], cls: ShellClass, literal?: boolean];

/** A parsed analysis of simple commands; the line's class is the worst of theirs. */
export function analysis(cmds: Cmd[], writeTargets: ShellAnalysis['writeTargets'] = []): ShellAnalysis {
  const classes = cmds.map(([, c]) => c);
  const cls: ShellClass = classes.includes('deny') ? 'deny' : classes.every((c) => c === 'approve') ? 'approve' : 'ask';
  return {
    class: cls,
    reason: `rated ${cls}`,
    rule: 'fixture',
    commands: cmds.map(([argv, c, literal]) => ({ argv, literal: literal ?? true, class: c, reason: `rated ${c}`, rule: 'fixture' })),
    writeTargets,
    parsed: true,
  };
}

/** The kind Claude Code's adapter gives a tool name (unknown tools are `other`). */
export function claudeKind(tool: string): ToolKind {
  return CLAUDE_TOOL_KINDS[tool]?.kind ?? 'other';
}
