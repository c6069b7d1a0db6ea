// Maps a core verdict to what Qwen Code understands: exit 2 with the reason on stderr
// refuses a tool call or continues the turn at Stop; allow is a silent exit 0.
import type { GateEvent } from '../../core/event.js';
import type { Verdict } from '../../core/verdict.js';
import type { HookOutput } from '../adapter.js';

/**
 * Qwen Code output for a verdict. A halt is not an output Qwen is known to honour, so it
 * refuses the call instead (exit 2): never weaker than a block.
 */
export function qwenOutput(_event: GateEvent['kind'], verdict: Verdict): HookOutput {
  if (verdict.decision === 'block' || verdict.decision === 'halt') return { exitCode: 2, stdout: '', stderr: `${verdict.reason}\n` };
  return { exitCode: 0, stdout: '', stderr: '' };
}
