// The Gemini CLI adapter: Claude-shaped hooks in `<worktree>/.gemini/settings.json` under
// Gemini's event names (BeforeTool on write_file/replace, AfterAgent for the completion
// gate; timeouts in milliseconds), and the folder trust Gemini needs to load them.
import { join } from 'node:path';
import type { AgentAdapter, Capabilities } from '../adapter.js';
import { withTrustStep } from '../trust-step.js';
import { claudeShapedAdapter } from '../shaped/adapter.js';
import { GEMINI_WRITE_MATCHER, parseGeminiEvent } from './event.js';
import { geminiOutput } from './output.js';
import { ensureTrusted, geminiUserDir, trustedFoldersFile, TrustRecord, undoTrust } from './trust.js';

const CAPABILITIES: Capabilities = {
  write_gate: { level: 'blocking', reason: 'BeforeTool hook on write_file and replace; exit 2 refuses the call and the model sees the reason' },
  shell_analysis: { level: 'blocking', reason: 'BeforeTool on run_shell_command: parsed, classified, write targets checked (an early warning; the scope check is the net)' },
  completion_gate: { level: 'blocking', reason: 'AfterAgent hook; exit 2 makes the agent retry with the reason' },
  approvals: { level: 'blocking', reason: 'BeforeTool waits on the approval queue; exit 2 with the reason on a rejection' },
  halt: { level: 'none', reason: 'no run-ending hook output is known to be honoured; a halt verdict refuses the call instead' },
};

/** Gemini CLI's project settings file, where the session's hooks go. */
function geminiSettingsFile(worktree: string): string {
  return join(worktree, '.gemini', 'settings.json');
}

const hooks = claudeShapedAdapter({
  name: 'gemini',
  capabilities: CAPABILITIES,
  settingsFile: geminiSettingsFile,
  settingsFiles: (worktree, env) => [geminiSettingsFile(worktree), join(geminiUserDir(env), 'settings.json'), trustedFoldersFile(env)],
  dataPaths: (env) => ({ dirs: [geminiUserDir(env)], files: [] }),
  writeMatcher: GEMINI_WRITE_MATCHER,
  parseEvent: parseGeminiEvent,
  output: geminiOutput,
  events: { preTool: 'BeforeTool', stop: 'AfterAgent', postTool: 'AfterTool' },
  timeoutUnitsPerSecond: 1000,
});

/** The Gemini CLI adapter. */
export const geminiAdapter: AgentAdapter = withTrustStep(hooks, {
  kind: 'gemini-trust',
  shape: TrustRecord,
  trust: (ctx) => ensureTrusted(ctx.worktree, trustedFoldersFile(ctx.env)),
  undo: undoTrust,
});
