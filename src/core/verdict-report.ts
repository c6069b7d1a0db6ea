// A completion verdict for people and for JSON: its own words (the reasons are written for the
// agent, telling it what to do), and one snake_case shape that every --json output carries.
import type { ChainResult, VerifierRecord } from './verifier-chain.js';
import { framed } from './display.js';

/** The verdict in one word: `continue` is a pass only at the end of a chain, so JSON spells it out. */
export type VerdictWord = 'passed' | 'failed' | 'halted';

/** The verdict as every JSON output carries it. */
export interface VerdictJson {
  passed: boolean;
  verdict: VerdictWord;
  /** The chain's raw outcome (`continue` = passed); read `passed` instead. */
  outcome: ChainResult['outcome'];
  decided_by: string | null;
  /** Every check that failed, in order. */
  failed_checks: string[];
  /** For people: what failed, per check (or that everything passed). */
  summary: string;
  /** What the agent was told (null when it passed). */
  reason: string | null;
  verifiers: VerifierRecord[];
}

/** What a passing verdict says. */
export const PASSED_SUMMARY = 'every required check passed and every change is inside the allowlist';

/** True when the chain let the stop through. */
export function verdictPassed(result: ChainResult): boolean {
  return result.outcome === 'continue';
}

/** The verdict in one word. */
export function verdictWord(result: ChainResult): VerdictWord {
  return result.outcome === 'continue' ? 'passed' : result.outcome === 'halt' ? 'halted' : 'failed';
}

/**
 * What failed, one check per entry, for a person: each check's own summary when it gave one,
 * else its reason (an operator's stop hook writes for whoever reads it).
 */
function failureLines(result: ChainResult): string[] {
  return result.records.filter((r) => r.outcome === 'block' || r.outcome === 'halt').map((r) => personLine(r.name, r.summary ?? null, r.reason ?? r.outcome));
}

/** Checks whose summary names what failed in a person's words, so their verifier name adds nothing. */
const SELF_NAMING = new Set(['evidence_producers', 'scope_check']);

/**
 * One failed check as a person reads it: its summary alone where that names the check (the
 * required checks, the scope), else prefixed with the verifier's name (an operator's stop hook).
 * @example personLine('scope_check', 'a file outside … changed', '…') // 'a file outside … changed'
 */
export function personLine(name: string, summary: string | null, fallback: string): string {
  if (summary !== null && SELF_NAMING.has(name)) return summary;
  return `${name}: ${summary ?? fallback}`;
}

/** The verdict for a person, one line per failed check (continuation lines indented). */
export function humanSummary(result: ChainResult): string {
  if (verdictPassed(result)) return PASSED_SUMMARY;
  return failureLines(result).join('\n');
}

/**
 * The failures as an indented list under a headline, e.g. for `run` and `session check`.
 * @example `FAILED:\n${failureList(result)}`
 */
export function failureList(result: ChainResult, indent = '  '): string {
  // Every line made safe as it is printed: a check's summary may quote what the agent wrote.
  return failureLines(result)
    .map((line) => `${indent}- ${framed(line, '').split('\n').join(`\n${indent}  `)}`)
    .join('\n');
}

/** The verdict in the shape every --json output uses. */
export function verdictJson(result: ChainResult): VerdictJson {
  return {
    passed: verdictPassed(result),
    verdict: verdictWord(result),
    outcome: result.outcome,
    decided_by: result.decidedBy,
    failed_checks: result.failed,
    summary: humanSummary(result),
    reason: result.reason,
    verifiers: result.records,
  };
}
