// Maps a core verdict to what Copilot CLI honours: JSON on stdout. Exit 2 would refuse a
// tool call without telling the model why, and agentStop ignores exit 2 altogether.
import type { GateEvent } from '../../core/event.js';
import type { Verdict } from '../../core/verdict.js';
import type { HookOutput } from '../adapter.js';

/**
 * `{"permissionDecision": "deny", …}` refuses a tool call with the reason; `{"decision":
 * "block", …}` at agentStop forces another turn. A halt, not known to be honoured, refuses.
 * An allow's note (a turn let end unverified) is dropped: agentStop's output has only
 * `decision` and `reason`, and exit 2 there (which Copilot logs as a warning the user sees) would
 * mean a block to any version that starts honouring it. The unverified end is still written to
 * the session log and the audit log.
 */
export function copilotOutput(event: GateEvent['kind'], verdict: Verdict): HookOutput {
  if (verdict.decision === 'allow') return { exitCode: 0, stdout: '', stderr: '' };
  const out = event === 'stop' ? { decision: 'block', reason: verdict.reason } : { permissionDecision: 'deny', permissionDecisionReason: verdict.reason };
  return { exitCode: 0, stdout: `${JSON.stringify(out)}\n`, stderr: '' };
}
