// Maps a core verdict to what Cursor honours: JSON on stdout. `{"permission": "deny",
// "agent_message", "user_message"}` refuses a tool call or a shell command and tells the
// model why; at `stop` there is no block, only `{"followup_message"}`, which Cursor submits as
// the next user message (bounded by the hook's `loop_limit`).
import type { GateEvent } from '../../core/event.js';
import type { Verdict } from '../../core/verdict.js';
import type { HookOutput } from '../adapter.js';

/**
 * Cursor output for a verdict; a halt, not known to be honoured, refuses the call. An allow's
 * note (a turn let end unverified) is dropped: `stop` can answer only `followup_message`, which
 * would start another turn instead of telling the user; the unverified end is still written to the
 * session log and the audit log.
 */
export function cursorOutput(event: GateEvent['kind'], verdict: Verdict): HookOutput {
  if (verdict.decision === 'allow') return { exitCode: 0, stdout: '', stderr: '' };
  const out = event === 'stop' ? { followup_message: verdict.reason } : { permission: 'deny', agent_message: verdict.reason, user_message: `Gatehouse refused this: ${verdict.reason}` };
  return { exitCode: 0, stdout: `${JSON.stringify(out)}\n`, stderr: '' };
}
