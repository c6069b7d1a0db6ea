// The Claude Code adapter: a PreToolUse write gate on the exact write tools and a Stop
// completion gate, rendered into `<worktree>/.claude/settings.local.json`.
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fail, ok, type Result } from '../../core/result.js';
import type { AgentAdapter, Capabilities, RenderContext, RenderedFile } from '../adapter.js';
import { hookInvocation } from '../hook-transport.js';
import { CLAUDE_WRITE_MATCHER, parseClaudeEvent } from './event.js';
import { claudeOutput } from './output.js';
import { removeHooks, renderHooks, type HookEntry, type RenderRecord } from './render.js';

/** PreToolUse work is a few path checks; a minute is far beyond any real run and still bounded. */
const PRE_TOOL_TIMEOUT_S = 60;

const CAPABILITIES: Capabilities = {
  write_gate: { level: 'blocking', reason: 'PreToolUse hook on Write, Edit, MultiEdit, NotebookEdit; exit 2 refuses the call' },
  shell_analysis: { level: 'blocking', reason: 'PreToolUse on Bash: parsed, classified, write targets checked (an early warning; the scope check is the net)' },
  completion_gate: { level: 'blocking', reason: 'Stop hook; exit 2 makes the model continue' },
  approvals: { level: 'blocking', reason: 'PreToolUse waits on the approval queue; exit 2 with the reason on a rejection' },
  halt: { level: 'blocking', reason: 'hook JSON {"continue": false} ends the run' },
};

/**
 * The hook for one event: the cold command runs the bundle by absolute paths (no npx, no
 * PATH lookup); a warm session wraps it in the bash client, which falls back to it.
 */
export function claudeHook(ctx: RenderContext, event: string, timeoutS: number): { event: string; command: string; timeout: number } {
  const argv = [ctx.nodePath, ctx.hookBundle, 'check', '--session', ctx.sessionId, '--event', event, '--state-dir', ctx.projectState, '--agent', 'claude'];
  if (ctx.failClosed) argv.push('--fail-closed');
  return { event, ...hookInvocation(argv, { sessionId: ctx.sessionId, event, agent: 'claude', failClosed: ctx.failClosed }, timeoutS, ctx.warm) };
}

/** Claude Code's settings file for per-session, per-user hooks. */
export function claudeSettingsFile(worktree: string): string {
  return join(worktree, '.claude', 'settings.local.json');
}

/** The Claude Code adapter. */
export const claudeAdapter: AgentAdapter = {
  name: 'claude',
  capabilities: CAPABILITIES,
  settingsFiles(worktree) {
    // Every settings level that can switch hooks off (`disableAllHooks`) or replace them.
    return [
      claudeSettingsFile(worktree),
      join(worktree, '.claude', 'settings.json'),
      join(homedir(), '.claude', 'settings.json'),
      join(homedir(), '.claude', 'settings.local.json'),
    ];
  },
  renderTargets(worktree) {
    return [claudeSettingsFile(worktree)];
  },
  render(ctx: RenderContext): Result<RenderedFile[]> {
    const entries: HookEntry[] = [
      // `*` matches every tool; otherwise the exact write tools (a regex like `Edit.*` would over-match).
      { matcher: ctx.watchAllTools ? '*' : CLAUDE_WRITE_MATCHER, ...claudeHook(ctx, 'PreToolUse', ctx.preToolTimeoutS) },
      claudeHook(ctx, 'Stop', ctx.stopTimeoutS),
    ];
    if (ctx.trackFailures) entries.push({ matcher: '*', ...claudeHook(ctx, 'PostToolUse', PRE_TOOL_TIMEOUT_S) });
    const file = claudeSettingsFile(ctx.worktree);
    const r = renderHooks(file, entries);
    if (!r.ok) return fail(r.reason);
    return ok([{ file, record: r.value }]);
  },
  unrender(files: RenderedFile[]) {
    let removed = 0;
    for (const f of files) {
      const r = removeHooks(f.record as RenderRecord);
      if (!r.ok) return fail(r.reason);
      removed += r.value.removed;
    }
    return ok({ removed });
  },
  parseEvent: parseClaudeEvent,
  output: claudeOutput,
};
