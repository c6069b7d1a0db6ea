// The Claude Code adapter: a PreToolUse write gate on the exact write tools and a Stop
// completion gate, rendered into `<worktree>/.claude/settings.local.json`.
import { join } from 'node:path';
import type { AgentAdapter, Capabilities } from '../adapter.js';
import { claudeShapedAdapter } from '../shaped/adapter.js';
import { homeOf } from '../agent-home.js';
import { CLAUDE_WRITE_MATCHER, parseClaudeEvent } from './event.js';
import { claudeOutput } from './output.js';

const CAPABILITIES: Capabilities = {
  write_gate: { level: 'blocking', reason: 'PreToolUse hook on Write, Edit, MultiEdit, NotebookEdit; exit 2 refuses the call' },
  shell_analysis: { level: 'blocking', reason: 'PreToolUse on Bash: parsed, classified, write targets checked (an early warning; the scope check is the net)' },
  completion_gate: { level: 'blocking', reason: 'Stop hook; exit 2 makes the model continue' },
  approvals: { level: 'blocking', reason: 'PreToolUse waits on the approval queue; exit 2 with the reason on a rejection' },
  halt: { level: 'blocking', reason: 'hook JSON {"continue": false} ends the run' },
};

/** Claude Code's settings file for per-session, per-user hooks. */
function claudeSettingsFile(worktree: string): string {
  return join(worktree, '.claude', 'settings.local.json');
}

/** The Claude Code adapter. */
export const claudeAdapter: AgentAdapter = claudeShapedAdapter({
  name: 'claude',
  capabilities: CAPABILITIES,
  settingsFile: claudeSettingsFile,
  settingsFiles(worktree, env) {
    // Every settings level that can switch hooks off (`disableAllHooks`) or replace them.
    return [claudeSettingsFile(worktree), join(worktree, '.claude', 'settings.json'), join(homeOf(env), '.claude', 'settings.json'), join(homeOf(env), '.claude', 'settings.local.json')];
  },
  // Claude Code keeps sessions, todos and credentials in ~/.claude and its state in ~/.claude.json.
  dataPaths: (env) => ({ dirs: [join(homeOf(env), '.claude')], files: [join(homeOf(env), '.claude.json')] }),
  writeMatcher: CLAUDE_WRITE_MATCHER,
  parseEvent: parseClaudeEvent,
  output: claudeOutput,
});
