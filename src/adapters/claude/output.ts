// Maps a core verdict to what Claude Code understands: exit 2 with the reason on
// stderr blocks; halt is exit 0 with {"continue": false}; allow is a silent exit 0.
import type { GateEvent } from '../../core/event.js';
import type { Verdict } from '../../core/verdict.js';
import type { HookOutput } from '../adapter.js';

/** Claude Code output for a verdict. */
export function claudeOutput(_event: GateEvent['kind'], verdict: Verdict): HookOutput {
  if (verdict.decision === 'block') return { exitCode: 2, stdout: '', stderr: `${verdict.reason}\n` };
  if (verdict.decision === 'halt') {
    return { exitCode: 0, stdout: `${JSON.stringify({ continue: false, stopReason: verdict.reason })}\n`, stderr: '' };
  }
  if (verdict.note) return { exitCode: 0, stdout: `${JSON.stringify({ systemMessage: verdict.note })}\n`, stderr: '' };
  return { exitCode: 0, stdout: '', stderr: '' };
}
