// The agent's own claim about its work, read from the last line of its final message
// that says `VERDICT: PASS|FAIL|PARTIAL`; recorded beside Gatehouse's verdict, never trusted.

/** What the agent said about its own work. */
export type AgentClaim = 'PASS' | 'FAIL' | 'PARTIAL';

/**
 * A claim line. Case-insensitive throughout (`Verdict: pass` counts, models vary their
 * casing); the word must end right after the value, so `PASSED` or `PASSING` do not count.
 */
const CLAIM_LINE_RE = /^\s*VERDICT:\s*(PASS|FAIL|PARTIAL)\b/i;

/**
 * The claim on the last matching line of `finalText`, upper-cased; null when there is none.
 * @example parseAgentClaim('Done.\nVERDICT: PASS') // 'PASS'
 */
export function parseAgentClaim(finalText: string | null): AgentClaim | null {
  if (finalText === null) return null;
  const lines = finalText.split(/\r\n|\r|\n/);
  for (let i = lines.length - 1; i >= 0; i--) {
    const m = CLAIM_LINE_RE.exec(lines[i] as string);
    if (m) return (m[1] as string).toUpperCase() as AgentClaim;
  }
  return null;
}

/**
 * Whether a claim agrees with a verdict: claiming PASS agrees only with `pass`; claiming
 * FAIL or PARTIAL (not done) agrees with every other verdict.
 * @example claimAgrees('PASS', 'fail') // false
 */
export function claimAgrees(claim: AgentClaim, verdict: string): boolean {
  return (claim === 'PASS') === (verdict === 'pass');
}
