// The Claude Agent SDK adapter: nothing is rendered into files; a program built on the SDK
// passes `gatehouseHooks({ session })` as `query()`'s `hooks` option, and its callbacks run
// the same hook gate in-process (see hooks.ts).
import { join } from 'node:path';
import { ok } from '../../core/result.js';
import type { AgentAdapter, Capabilities } from '../adapter.js';
import { parseSdkEvent } from './event.js';
import { sdkOutput } from './output.js';
import { homeOf } from '../agent-home.js';

const CAPABILITIES: Capabilities = {
  write_gate: { level: 'blocking', reason: 'in-process PreToolUse callback (gatehouseHooks); a deny refuses the call and the model sees the reason' },
  shell_analysis: { level: 'blocking', reason: 'the PreToolUse callback parses and checks Bash commands as for Claude Code' },
  completion_gate: { level: 'blocking', reason: 'in-process Stop callback; decision "block" makes the model continue' },
  approvals: { level: 'blocking', reason: 'the PreToolUse callback waits on the approval queue' },
  halt: { level: 'blocking', reason: 'callback JSON {"continue": false} ends the run' },
};

/** The Claude Agent SDK adapter (`--agent claude-sdk`). */
export const claudeSdkAdapter: AgentAdapter = {
  name: 'claude-sdk',
  capabilities: CAPABILITIES,
  // The hooks live in the program, not in a file the agent could edit.
  settingsFiles: () => [],
  // The SDK runs Claude Code, which keeps its sessions in ~/.claude.
  dataPaths: (env) => ({ dirs: [join(homeOf(env), '.claude')], files: [join(homeOf(env), '.claude.json')] }),
  renderTargets: () => [],
  render: () => ok([]),
  unrender: () => ok({ removed: 0 }),
  checkRecords: () => ok(undefined),
  parseEvent: parseSdkEvent,
  output: sdkOutput,
};
