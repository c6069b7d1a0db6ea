// doctor's approvals probe: a second canary session with interactive approvals, one shell call
// the model makes, rejected by doctor through the queue (as a person would from the dashboard);
// the rejection's reason must reach the model.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { systemPrincipal } from '../../core/approvals/principal.js';
import { startSession } from '../../gate/session-lifecycle.js';
import { gatehouseHooks } from '../../gate/sdk-hooks.js';
import { endSession } from '../../gate/session-end.js';
import { ApprovalQueue } from '../../runtime/approvals/queue.js';
import type { GateResult } from '../../runtime/doctor/evidence.js';
import type { AgentProbe, ProbeDirs } from '../../runtime/doctor/probes.js';
import { say } from '../../runtime/doctor/stub/messages-api.js';
import { hookBundlePath } from '../context.js';
import type { DoctorCleanup } from './cleanup.js';

/** The reason doctor rejects the call with, looked for in what the model is sent next. */
const APPROVAL_MARKER = 'GATEHOUSE_DOCTOR_APPROVAL_REJECTED';
/** Who rejects the canary call: doctor itself, recorded as such in the throwaway audit log. */
const DOCTOR_PRINCIPAL = systemPrincipal('gatehouse-doctor');
/** How often the queue is looked at while the agent waits for an answer. */
const POLL_MS = 50;

/** Runs the approvals canary for `probe` (which has an `approvalCall`) in `dirs`; the project is reused. */
export async function probeApprovals(
  probe: AgentProbe,
  bin: string,
  dirs: ProbeDirs,
  env: NodeJS.ProcessEnv,
  opts: { timeoutMs: number; cleanup: DoctorCleanup; keepEnv: Record<string, string> },
): Promise<GateResult> {
  const broken = (evidence: string): GateResult => ({ state: 'BROKEN', claimed: 'blocking', evidence });
  const call = probe.approvalCall;
  if (call === undefined) throw new Error(`no approval call for ${probe.agent}`);
  writeFileSync(join(dirs.project, 'gatehouse.yaml'), 'approvals:\n  interactive: true\n  timeout_s: 30\n');
  const stub = await probe.startStub((_sent, i) => (i === 0 ? call : say('done')));
  try {
    // The agent's own config names its model by URL (Codex's config.toml): point it at this stand-in, not the first run's.
    probe.prepare?.(dirs, stub.url);
    const session = await startSession({
      agent: probe.agent,
      worktree: dirs.project,
      allow: [],
      require: [],
      stateDir: join(dirs.root, 'state'),
      env,
      nodePath: process.execPath,
      hookBundle: hookBundlePath(),
      transport: 'command',
    });
    if (!session.ok) return broken(`session start refused: ${session.reason}`);
    const queue = new ApprovalQueue(session.value.policy.state_dir);
    let asked = '';
    const poll = setInterval(() => {
      for (const p of queue.list({ session: session.value.policy.session_id })) {
        asked = p.tool;
        queue.resolve(p.id, { decision: 'reject', nonce: p.nonce, reason: APPROVAL_MARKER, principal: DOCTOR_PRINCIPAL });
      }
    }, POLL_MS);
    try {
      const run = await probe.run(dirs, stub, {
        bin,
        timeoutMs: opts.timeoutMs,
        onSpawn: (pid) => opts.cleanup.addGroup(pid),
        keepEnv: opts.keepEnv,
        hooks: probe.inProcess ? gatehouseHooks({ session: session.value.policy.session_id, worktree: dirs.project, stateDir: session.value.policy.state_dir }) : undefined,
      });
      if (asked === '') return broken(`the call ran without reaching the approval queue${run.timedOut ? ' (hang)' : ''}`);
      const told = stub.sent()[1]?.includes(APPROVAL_MARKER) === true;
      if (!told) return broken(`the ${asked} call waited for approval and was rejected, but the model was not told the reason`);
      return { state: 'blocking', claimed: 'blocking', evidence: `a ${asked} call waited in the approval queue; doctor rejected it and the model saw the reason` };
    } finally {
      clearInterval(poll);
      endSession(session.value.store);
    }
  } finally {
    await stub.close();
  }
}
