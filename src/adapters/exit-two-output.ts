// The verdict mapping for agents whose only blocking hook output is exit 2 with the reason on
// stderr (Qwen Code, Gemini CLI): it refuses a tool call, or continues the turn at a stop.
import type { GateEvent } from '../core/event.js';
import type { Verdict } from '../core/verdict.js';
import type { HookOutput } from './adapter.js';

/**
 * Exit 2 with the reason for a block; a halt, which these agents are not known to honour as
 * output, refuses the call the same way (never weaker than a block); allow is a silent 0.
 */
export function exitTwoOutput(_event: GateEvent['kind'], verdict: Verdict): HookOutput {
  if (verdict.decision === 'block' || verdict.decision === 'halt') return { exitCode: 2, stdout: '', stderr: `${verdict.reason}\n` };
  return { exitCode: 0, stdout: '', stderr: '' };
}
