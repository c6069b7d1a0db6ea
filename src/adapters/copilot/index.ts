// The Copilot CLI adapter: the session's own hooks file `.github/hooks/gatehouse.json`
// (preToolUse on every tool, agentStop for the completion gate), answered in JSON, and the
// folder trust without which Copilot silently skips repository hooks.
import { existsSync, mkdirSync, readFileSync, rmdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fail, ok, type Result } from '../../core/result.js';
import { writeFileAtomic } from '../../runtime/fs-atomic.js';
import type { AgentAdapter, Capabilities, RenderContext, RenderedFile } from '../adapter.js';
import { shapedHook } from '../claude-shaped.js';
import { parseCopilotEvent } from './event.js';
import { copilotOutput } from './output.js';
import { copilotConfigFile, ensureCopilotTrust, undoCopilotTrust, type CopilotTrustRecord } from './trust.js';

const CAPABILITIES: Capabilities = {
  write_gate: { level: 'blocking', reason: 'preToolUse hook on every tool (create, edit); JSON permissionDecision "deny" refuses the call and the model sees the reason' },
  shell_analysis: { level: 'blocking', reason: 'preToolUse on bash: parsed, classified, write targets checked (an early warning; the scope check is the net)' },
  completion_gate: { level: 'blocking', reason: 'agentStop hook answering {"decision":"block"} forces another turn (it ignores exit 2)' },
  approvals: { level: 'blocking', reason: 'preToolUse waits on the approval queue; a rejection is a deny with the reason' },
  halt: { level: 'none', reason: 'no run-ending hook output is known to be honoured; a halt verdict refuses the call instead' },
};

/** The hooks file Gatehouse owns for a session. */
export function copilotHooksFile(worktree: string): string {
  return join(worktree, '.github', 'hooks', 'gatehouse.json');
}

/** What render wrote, so that removal deletes exactly that. */
interface HooksFileRecord {
  kind: 'copilot-hooks';
  file: string;
  written: string;
  /** Folders render created, deepest last (removed again if empty). */
  createdDirs: string[];
}

function renderHooksFile(ctx: RenderContext): Result<HooksFileRecord> {
  const file = copilotHooksFile(ctx.worktree);
  if (existsSync(file)) return fail(`${file} already exists: another Gatehouse session renders into it; end that session first (gatehouse session end <id>)`);
  const hook = (event: string, timeoutS: number): { type: string; bash: string; timeoutSec: number } => {
    const h = shapedHook('copilot', ctx, event, timeoutS);
    return { type: 'command', bash: h.command, timeoutSec: h.timeout };
  };
  const written = `${JSON.stringify({ version: 1, hooks: { preToolUse: [hook('preToolUse', ctx.preToolTimeoutS)], agentStop: [hook('agentStop', ctx.stopTimeoutS)] } }, null, 2)}\n`;
  const createdDirs: string[] = [];
  for (const dir of [dirname(dirname(file)), dirname(file)]) {
    if (existsSync(dir)) continue;
    mkdirSync(dir);
    createdDirs.push(dir);
  }
  writeFileAtomic(file, written);
  return ok({ kind: 'copilot-hooks', file, written, createdDirs });
}

function removeHooksFile(record: HooksFileRecord): Result<{ removed: number }> {
  if (!existsSync(record.file)) return ok({ removed: 0 });
  if (readFileSync(record.file, 'utf8') !== record.written) {
    return fail(`${record.file} was edited during the session, so Gatehouse leaves it to you: check it and delete it`);
  }
  rmSync(record.file);
  for (const dir of [...record.createdDirs].reverse()) {
    try {
      rmdirSync(dir);
    } catch {
      // not empty any more: someone else uses it now
    }
  }
  return ok({ removed: 2 });
}

type Record2 = HooksFileRecord | CopilotTrustRecord;

/** The Copilot CLI adapter. */
export const copilotAdapter: AgentAdapter = {
  name: 'copilot',
  capabilities: CAPABILITIES,
  settingsFiles: (worktree) => [copilotHooksFile(worktree), copilotConfigFile()],
  renderTargets: (worktree) => [copilotHooksFile(worktree)],
  render(ctx) {
    // Trust first: hooks Copilot would skip must never be reported as rendered.
    const trust = ensureCopilotTrust(ctx.worktree);
    if (!trust.ok) return fail(trust.reason);
    const hooks = renderHooksFile(ctx);
    if (!hooks.ok) {
      undoCopilotTrust(trust.value);
      return hooks;
    }
    return ok([
      { file: hooks.value.file, record: hooks.value },
      { file: trust.value.file, record: trust.value },
    ]);
  },
  unrender(files: RenderedFile[]) {
    let removed = 0;
    for (const f of files) {
      const record = f.record as Record2;
      const r = record.kind === 'copilot-trust' ? undoCopilotTrust(record) : removeHooksFile(record);
      if (!r.ok) return fail(r.reason);
      if (record.kind === 'copilot-hooks') removed += (r.value as { removed: number }).removed;
    }
    return ok({ removed });
  },
  parseEvent: parseCopilotEvent,
  output: copilotOutput,
};
