// The Copilot CLI adapter: the session's own hooks file `.github/hooks/gatehouse.json`
// (preToolUse on every tool, agentStop for the completion gate), answered in JSON, and the
// folder trust without which Copilot silently skips repository hooks.
import { join } from 'node:path';
import { fail, ok, type Result } from '../../core/result.js';
import type { AgentAdapter, Capabilities, RenderContext, RenderedFile } from '../adapter.js';
import { shapedHook } from '../shaped/adapter.js';
import { removeOwnedFile, writeOwnedFile, type OwnedFileRecord } from '../owned-file.js';
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

/** The hooks file's record, tagged apart from the trust record. */
type HooksFileRecord = OwnedFileRecord & { kind: 'copilot-hooks'; entries: number };

function renderHooksFile(ctx: RenderContext): Result<HooksFileRecord> {
  const hook = (event: string, timeoutS: number): { type: string; bash: string; timeoutSec: number } => {
    const h = shapedHook('copilot', ctx, event, timeoutS);
    return { type: 'command', bash: h.command, timeoutSec: h.timeout };
  };
  const hooks = { preToolUse: [hook('preToolUse', ctx.preToolTimeoutS)], agentStop: [hook('agentStop', ctx.stopTimeoutS)] };
  const content = `${JSON.stringify({ version: 1, hooks }, null, 2)}\n`;
  const written = writeOwnedFile(copilotHooksFile(ctx.worktree), content, 2);
  return written.ok ? ok({ ...written.value, kind: 'copilot-hooks', entries: Object.values(hooks).flat().length }) : written;
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
      if (record.kind === 'copilot-trust') {
        const r = undoCopilotTrust(record);
        if (!r.ok) return r;
      } else {
        const r = removeOwnedFile(record);
        if (!r.ok) return r;
        removed += r.value * record.entries;
      }
    }
    return ok({ removed });
  },
  parseEvent: parseCopilotEvent,
  output: copilotOutput,
};
