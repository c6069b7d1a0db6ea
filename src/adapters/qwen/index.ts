// The Qwen Code adapter: Claude-shaped hooks in `<worktree>/.qwen/settings.json` — a
// PreToolUse write gate on write_file/edit and a Stop completion gate (exit 2 continues).
import { join } from 'node:path';
import type { AgentAdapter, Capabilities } from '../adapter.js';
import { claudeShapedAdapter } from '../shaped/adapter.js';
import { homeOf } from '../agent-home.js';
import { parseQwenEvent, QWEN_WRITE_MATCHER } from './event.js';
import { qwenOutput } from './output.js';

const CAPABILITIES: Capabilities = {
  write_gate: { level: 'blocking', reason: 'PreToolUse hook on write_file and edit; exit 2 refuses the call and the model sees the reason' },
  shell_analysis: { level: 'blocking', reason: 'PreToolUse on run_shell_command: parsed, classified, write targets checked (an early warning; the scope check is the net)' },
  completion_gate: { level: 'blocking', reason: 'Stop hook; exit 2 continues the turn with the reason' },
  approvals: { level: 'blocking', reason: 'PreToolUse waits on the approval queue; exit 2 with the reason on a rejection' },
  halt: { level: 'none', reason: 'no run-ending hook output is known to be honoured; a halt verdict refuses the call instead' },
};

/** Qwen Code's project settings file, where the session's hooks go. */
function qwenSettingsFile(worktree: string): string {
  return join(worktree, '.qwen', 'settings.json');
}

/** The Qwen Code adapter. */
export const qwenAdapter: AgentAdapter = claudeShapedAdapter({
  name: 'qwen',
  capabilities: CAPABILITIES,
  settingsFile: qwenSettingsFile,
  settingsFiles: (worktree, env) => [qwenSettingsFile(worktree), join(homeOf(env), '.qwen', 'settings.json')],
  dataPaths: (env) => ({ dirs: [join(homeOf(env), '.qwen')], files: [] }),
  writeMatcher: QWEN_WRITE_MATCHER,
  parseEvent: parseQwenEvent,
  output: qwenOutput,
});
