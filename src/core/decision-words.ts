// A gate decision from the audit log in words for a person: what was decided about which
// call or stop, and the reason. Shared by `session show`, `gatehouse run`'s progress and the dashboard.
import { PASSED_SUMMARY, personLine } from './verdict-report.js';

/** The fields of an audit event a decision is worded from. */
export interface DecisionEvent {
  type: string;
  data: unknown;
}

const OUTCOME_WORDS: Record<string, string> = { continue: 'passed', allow: 'allowed', block: 'refused', halt: 'halted', ask: 'asked a person' };
const VERDICT_WORDS: Record<string, string> = { pass: 'passed', fail: 'failed', halt: 'halted', unverified: 'let through UNVERIFIED' };
const APPROVAL_WORDS: Record<string, string> = { allow: 'allowed', reject: 'rejected', always: 'always allowed' };

/**
 * A completion verdict's refusals as its checks worded them for a person, one per line; null
 * when the event predates those words (its reason, written for the agent, is shown instead).
 */
function personSummary(d: Record<string, unknown>): string | null {
  if (!Array.isArray(d.verifiers)) return null;
  const lines = d.verifiers
    .filter((v): v is Record<string, unknown> => typeof v === 'object' && v !== null && typeof (v as Record<string, unknown>).summary === 'string')
    .filter((v) => v.outcome === 'block' || v.outcome === 'halt')
    .map((v) => personLine(String(v.name), String(v.summary), ''));
  return lines.length > 0 ? lines.join('\n') : null;
}

/** What one decision event says, in a line, and the reason it gave. */
export function describeDecision(e: DecisionEvent, worktree: string | null): { what: string; reason: string } {
  const d = e.data as Record<string, unknown>;
  const text = (key: string): string => (typeof d[key] === 'string' ? (d[key] as string) : '');
  const word = (words: Record<string, string>, value: string): string => words[value] ?? value;
  const reason = text('reason');
  if (e.type === 'gate_decision') {
    const inside = (t: string): string => (worktree !== null && t.startsWith(`${worktree}/`) ? t.slice(worktree.length + 1) : t);
    const targets = Array.isArray(d.targets) ? d.targets.filter((t): t is string => typeof t === 'string').map(inside) : [];
    return { what: `${word(OUTCOME_WORDS, text('decision'))} ${text('tool')}${targets.length > 0 ? ` ${targets.join(', ')}` : ''} (rule ${text('rule')})`, reason };
  }
  if (e.type === 'completion_verdict') {
    const where = text('where') === 'end_of_session' ? 'end-of-session check' : 'stop';
    const failed = Array.isArray(d.failed_checks) ? d.failed_checks.filter((c): c is string => typeof c === 'string') : [];
    const recorded = where === 'stop' && text('verdict') === 'fail' ? 'refused' : VERDICT_WORDS[text('verdict')];
    const verdict = text('verdict') !== '' ? (recorded ?? text('verdict')) : word(OUTCOME_WORDS, text('outcome'));
    const by = failed.length > 0 ? failed.join(', ') : text('decided_by');
    return { what: `${where} ${verdict}${by !== '' ? ` (${by})` : ''}`, reason: personSummary(d) ?? reason };
  }
  if (e.type === 'human_approval_decision') {
    return { what: `approval ${word(APPROVAL_WORDS, text('decision'))} for ${text('tool')} by ${text('decided_by')}`, reason };
  }
  return { what: `tampering detected at ${text('event')}: ${text('what')}`, reason };
}

/** What meta.json's `end_verdict` holds, read defensively: no digest covers that file. */
export interface RecordedEndVerdict {
  passed?: unknown;
  verdict?: unknown;
  summary?: unknown;
}

/** A session's end verdict for a person, and where it comes from. */
export interface EndVerdictView {
  word: string;
  summary: string;
  /** `audit`: the log's signed end-of-session check; `meta`: only meta.json says so; `not_run`: the command never started. */
  source: 'audit' | 'meta' | 'not_run';
  /** meta.json's word when it disagrees with the signed record (it was changed outside Gatehouse), else null. */
  metaSays: 'passed' | 'failed' | null;
}

/**
 * The end verdict, from the audit log's end-of-session check (the signed record) when it holds
 * one, its summary one line per failed check; meta.json's only when the log holds none.
 * Null before any end-of-session check.
 * @example endVerdictView(meta.end_verdict, decisions.endVerdict)?.word // 'failed'
 */
export function endVerdictView(meta: RecordedEndVerdict | null | undefined, endEvent: DecisionEvent | null): EndVerdictView | null {
  const metaPassed = meta ? meta.passed === true : null;
  if (endEvent === null) {
    if (!meta) return null;
    // A command that never started has nothing to check, so no check is in the log by design.
    if (meta.verdict === 'not_run') return { word: 'not run', summary: String(meta.summary), source: 'not_run', metaSays: null };
    return { word: metaPassed ? 'passed' : 'failed', summary: String(meta.summary), source: 'meta', metaSays: null };
  }
  const d = endEvent.data as Record<string, unknown>;
  const passed = d.verdict === 'pass' || (d.verdict === undefined && d.outcome === 'continue');
  return {
    word: passed ? 'passed' : (VERDICT_WORDS[String(d.verdict)] ?? 'failed'),
    summary: passed ? PASSED_SUMMARY : (personSummary(d) ?? String(d.reason ?? '')),
    source: 'audit',
    metaSays: metaPassed !== null && metaPassed !== passed ? (metaPassed ? 'passed' : 'failed') : null,
  };
}
