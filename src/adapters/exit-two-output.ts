// The verdict mapping for agents whose only blocking hook output is exit 2 with the reason on
// stderr (Qwen Code, Gemini CLI, Codex CLI, the OpenCode plugin): it refuses a tool call, or
// continues the turn at a stop.
import type { GateEvent } from '../core/event.js';
import type { Verdict } from '../core/verdict.js';
import type { HookOutput } from './adapter.js';

/**
 * Exit 2 with the reason for a block; a halt, which these agents are not known to honour as
 * output, refuses the call the same way (never weaker than a block). An allow with a note (a
 * turn let end unverified) is exit 0 with `{"systemMessage": note}`, the Claude-shaped field
 * Qwen Code, Gemini CLI and Codex show the user; any other allow is a silent 0. (OpenCode has no
 * stop surface, so no note reaches it, and its plugin reads only the exit code and stderr.)
 */
export function exitTwoOutput(_event: GateEvent['kind'], verdict: Verdict): HookOutput {
  if (verdict.decision === 'block' || verdict.decision === 'halt') return { exitCode: 2, stdout: '', stderr: `${verdict.reason}\n` };
  if (verdict.note) return { exitCode: 0, stdout: `${JSON.stringify({ systemMessage: verdict.note })}\n`, stderr: '' };
  return { exitCode: 0, stdout: '', stderr: '' };
}
