// The Copilot CLI adapter: the session's own hooks file `.github/hooks/gatehouse.json`
// (preToolUse on every tool, agentStop for the completion gate), answered in JSON, and the
// folder trust without which Copilot silently skips repository hooks.
import { dirname, join } from 'node:path';
import { ok, type Result } from '../../core/result.js';
import { recordsOf, voidOf, type AgentAdapter, type Capabilities, type RenderContext, type RenderedFile } from '../adapter.js';
import { shapedHook } from '../shaped/adapter.js';
import { OWNED_FILE_FIELDS, removeOwnedFile, writeOwnedFile } from '../owned-file.js';
import { withTrustStep } from '../trust-step.js';
import { parseCopilotEvent } from './event.js';
import { copilotOutput } from './output.js';
import { copilotConfigFile, CopilotTrustRecord, ensureCopilotTrust, undoCopilotTrust } from './trust.js';
import { number, object, type Infer } from '../../core/shape.js';

const CAPABILITIES: Capabilities = {
  write_gate: { level: 'blocking', reason: 'preToolUse hook on every tool (create, edit); JSON permissionDecision "deny" refuses the call and the model sees the reason' },
  shell_analysis: { level: 'blocking', reason: 'preToolUse on bash: parsed, classified, write targets checked (an early warning; the scope check is the net)' },
  completion_gate: { level: 'blocking', reason: 'agentStop hook answering {"decision":"block"} forces another turn (it ignores exit 2)' },
  approvals: { level: 'blocking', reason: 'preToolUse waits on the approval queue; a rejection is a deny with the reason' },
  halt: { level: 'none', reason: 'no run-ending hook output is known to be honoured; a halt verdict refuses the call instead' },
};

/** The hooks file Gatehouse owns for a session. */
function copilotHooksFile(worktree: string): string {
  return join(worktree, '.github', 'hooks', 'gatehouse.json');
}

/** The hooks file's record, with the number of hook entries it holds. */
const HooksFileRecord = object({ ...OWNED_FILE_FIELDS, entries: number({ int: true, min: 0 }) });
type HooksFileRecord = Infer<typeof HooksFileRecord>;

function renderHooksFile(ctx: RenderContext): Result<RenderedFile[]> {
  const hook = (event: string, timeoutS: number): { type: string; bash: string; timeoutSec: number } => {
    const h = shapedHook('copilot', ctx, event, timeoutS);
    return { type: 'command', bash: h.command, timeoutSec: h.timeout };
  };
  const hooks = { preToolUse: [hook('preToolUse', ctx.preToolTimeoutS)], agentStop: [hook('agentStop', ctx.stopTimeoutS)] };
  const content = `${JSON.stringify({ version: 1, hooks }, null, 2)}\n`;
  const written = writeOwnedFile(copilotHooksFile(ctx.worktree), content, 2);
  if (!written.ok) return written;
  const record: HooksFileRecord = { ...written.value, entries: Object.values(hooks).flat().length };
  return ok([{ file: record.file, record }]);
}

function removeHooksFile(files: RenderedFile[]): Result<{ removed: number }> {
  const records = recordsOf(HooksFileRecord, files, 'Copilot CLI');
  if (!records.ok) return records;
  let removed = 0;
  for (const record of records.value) {
    const r = removeOwnedFile(record);
    if (!r.ok) return r;
    removed += r.value * record.entries;
  }
  return ok({ removed });
}

/** The Copilot CLI adapter. */
export const copilotAdapter: AgentAdapter = withTrustStep(
  {
    name: 'copilot',
    capabilities: CAPABILITIES,
    settingsFiles: (worktree, env) => [copilotHooksFile(worktree), copilotConfigFile(env)],
    dataPaths: (env) => ({ dirs: [dirname(copilotConfigFile(env))], files: [] }),
    renderTargets: (worktree) => [copilotHooksFile(worktree)],
    render: renderHooksFile,
    unrender: removeHooksFile,
    checkRecords: (files: RenderedFile[]) => voidOf(recordsOf(HooksFileRecord, files, 'Copilot CLI')),
    parseEvent: parseCopilotEvent,
    output: copilotOutput,
  },
  { kind: 'copilot-trust', shape: CopilotTrustRecord, trust: (ctx) => ensureCopilotTrust(ctx.worktree, copilotConfigFile(ctx.env)), undo: undoCopilotTrust },
);
