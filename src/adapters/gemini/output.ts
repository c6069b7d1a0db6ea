// Maps a core verdict to what Gemini CLI understands: exit 2 with the reason on stderr
// refuses a tool call (the model sees "Tool execution blocked: <reason>") or makes the
// agent retry at AfterAgent; allow is a silent exit 0.
import type { GateEvent } from '../../core/event.js';
import type { Verdict } from '../../core/verdict.js';
import type { HookOutput } from '../adapter.js';

/**
 * Gemini CLI output for a verdict. A halt is not an output Gemini is known to honour, so it
 * refuses the call instead (exit 2): never weaker than a block.
 */
export function geminiOutput(_event: GateEvent['kind'], verdict: Verdict): HookOutput {
  if (verdict.decision === 'block' || verdict.decision === 'halt') return { exitCode: 2, stdout: '', stderr: `${verdict.reason}\n` };
  return { exitCode: 0, stdout: '', stderr: '' };
}
