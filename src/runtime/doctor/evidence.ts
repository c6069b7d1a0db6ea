// Reads one canary run back into a state per gate: what landed on disk and what the model was
// sent decide `blocking` or `BROKEN`, with a short excerpt as evidence.
import { existsSync, readFileSync } from 'node:fs';
import type { AgentProcessRun } from './run/agent-process.js';
import { CHECK_MARKER, type CanaryFiles } from './canary.js';

/** A gate's state on this machine: it refused as claimed, Gatehouse claims nothing for it, or it failed silently. */
type GateState = 'blocking' | 'none' | 'BROKEN';

/** One gate's result. */
export interface GateResult {
  state: GateState;
  /** What Gatehouse's adapter claims for the gate (`blocking` or `none`). */
  claimed: 'blocking' | 'none';
  /** What was seen: the files, what the model was told, or why it is broken. */
  evidence: string;
}

/** Characters of the model's view quoted as evidence. */
const EXCERPT_CHARS = 160;

/** The text around `needle` in a request body (JSON escapes undone, so it reads as the model saw it). */
function excerpt(text: string, needle: string, from: 'reason' | 'needle' = 'reason'): string {
  const at = from === 'needle' ? text.lastIndexOf(needle) : text.indexOf(needle);
  if (at < 0) return '';
  // A refusal reads best from its first word ("Gatehouse refused …") when that is close by.
  const reason = text.lastIndexOf('Gatehouse', at);
  const start = from === 'reason' && reason >= 0 && reason >= at - EXCERPT_CHARS ? reason : at;
  const raw = text.slice(start, start + EXCERPT_CHARS);
  return raw.replace(/\\n/g, ' ').replace(/\\"/g, '"').replace(/\\\\/g, '\\').replace(/\s+/g, ' ').trim();
}

const contentOf = (abs: string): string | null => (existsSync(abs) ? readFileSync(abs, 'utf8') : null);

/** Why a run says nothing more: it hung, or it exited early. */
function runNote(run: AgentProcessRun, timeoutMs: number): string {
  if (run.timedOut) return ` (hang: the agent did not exit within ${Math.round(timeoutMs / 1000)} s and was killed)`;
  if (run.exitCode !== 0) return ` (the agent exited with ${run.exitCode ?? run.signal}: ${run.stderr.trim().split('\n').at(-1)?.slice(0, 200) ?? ''})`;
  return '';
}

/** The write gate: the out-of-scope write refused and explained to the model, the in-scope one landed. */
export function writeGateResult(files: CanaryFiles, sent: string[], run: AgentProcessRun, timeoutMs: number): GateResult {
  const broken = (why: string): GateResult => ({ state: 'BROKEN', claimed: 'blocking', evidence: `${why}${runNote(run, timeoutMs)}` });
  if (contentOf(files.outside.abs) !== null) return broken(`the out-of-scope write landed: ${files.outside.rel} exists`);
  const after = sent[1];
  if (after === undefined) return broken(`the agent sent no request after the out-of-scope write`);
  const told = excerpt(after, `${files.outside.rel} is outside`);
  if (told === '') return broken(`${files.outside.rel} was not written, but the model was not told Gatehouse's reason`);
  const inside = contentOf(files.inside.abs);
  if (inside !== files.inside.content)
    return broken(inside === null ? `the in-scope write did not land: ${files.inside.rel} is missing` : `${files.inside.rel} has other content than the agent wrote`);
  return { state: 'blocking', claimed: 'blocking', evidence: `refused ${files.outside.rel}, the model saw "${told}"; wrote ${files.inside.rel} (${inside.length} bytes)` };
}

/** The completion gate: a Stop while the required check fails is refused and the reason reaches the model. */
export function completionGateResult(files: CanaryFiles, sent: string[], run: AgentProcessRun, timeoutMs: number): GateResult {
  const seen = sent.slice(3).find((s) => s.includes(CHECK_MARKER));
  if (seen === undefined) {
    const why =
      sent.length <= 3 ? 'the agent ended its turn while the required check failed: no Stop refusal reached the model' : 'the model got another turn after the Stop, but not the failing check';
    return { state: 'BROKEN', claimed: 'blocking', evidence: `${why}${runNote(run, timeoutMs)}` };
  }
  // A stop that never lets go is the hang a blocking hook turns into when its limits are wrong.
  if (run.timedOut) return { state: 'BROKEN', claimed: 'blocking', evidence: `the Stop was refused, but the turn did not end after the fix${runNote(run, timeoutMs)}` };
  const fixed = existsSync(files.fix.abs) ? `; after the fix (${files.fix.rel}) the turn ended` : '';
  return { state: 'blocking', claimed: 'blocking', evidence: `Stop refused while doctor-check failed, the model saw its output "${excerpt(seen, CHECK_MARKER, 'needle')}"${fixed}` };
}
