// Maps a core verdict to what a Claude Agent SDK hook callback returns: the SDK's hook JSON,
// carried in the hook output's stdout so the one hook gate serves both paths.
import type { GateEvent } from '../../core/event.js';
import type { Verdict } from '../../core/verdict.js';
import type { HookOutput } from '../adapter.js';

/** The hook JSON the SDK honours (a subset of its `SyncHookJSONOutput`). */
export interface SdkHookOutput {
  continue?: boolean;
  stopReason?: string;
  decision?: 'block';
  reason?: string;
  systemMessage?: string;
  hookSpecificOutput?: { hookEventName: 'PreToolUse'; permissionDecision: 'deny'; permissionDecisionReason: string };
}

function json(exitCode: 0 | 2, out: SdkHookOutput): HookOutput {
  return { exitCode, stdout: JSON.stringify(out), stderr: '' };
}

/** SDK hook JSON for a verdict: deny a tool call, block a stop, halt the run, or nothing. */
export function sdkOutput(event: GateEvent['kind'], verdict: Verdict): HookOutput {
  if (verdict.decision === 'halt') return json(0, { continue: false, stopReason: verdict.reason });
  if (verdict.decision === 'block') {
    if (event === 'stop') return json(2, { decision: 'block', reason: verdict.reason });
    if (event === 'pre_tool') return json(2, { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: verdict.reason } });
    return { exitCode: 0, stdout: '', stderr: '' };
  }
  if (verdict.note) return json(0, { systemMessage: verdict.note });
  return { exitCode: 0, stdout: '', stderr: '' };
}
