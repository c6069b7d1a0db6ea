import { describe, expect, it } from 'vitest';
import { claimAgrees, parseAgentClaim } from '../../src/core/agent-claim.js';

describe('parseAgentClaim', () => {
  it('reads the claim on the last VERDICT line', () => {
    expect(parseAgentClaim('VERDICT: FAIL\nfixed it\nVERDICT: PASS\nbye')).toBe('PASS');
  });

  it('reads each of the three claims', () => {
    expect(parseAgentClaim('VERDICT: PASS')).toBe('PASS');
    expect(parseAgentClaim('VERDICT: FAIL')).toBe('FAIL');
    expect(parseAgentClaim('VERDICT: PARTIAL')).toBe('PARTIAL');
  });

  it('ignores case and surrounding whitespace and normalises to upper case', () => {
    expect(parseAgentClaim('  Verdict:   partial — tests left')).toBe('PARTIAL');
    expect(parseAgentClaim('verdict:pass')).toBe('PASS');
  });

  it('handles CRLF line ends', () => {
    expect(parseAgentClaim('done\r\nVERDICT: FAIL\r\n')).toBe('FAIL');
  });

  it('does not count a longer word or a mention inside a sentence', () => {
    expect(parseAgentClaim('VERDICT: PASSED')).toBeNull();
    expect(parseAgentClaim('The VERDICT: PASS line goes last')).toBeNull();
  });

  it('is null without text or without a claim line', () => {
    expect(parseAgentClaim(null)).toBeNull();
    expect(parseAgentClaim('')).toBeNull();
    expect(parseAgentClaim('all done')).toBeNull();
  });
});

describe('claimAgrees', () => {
  it('agrees when the agent claims PASS and the verdict is pass', () => {
    expect(claimAgrees('PASS', 'pass')).toBe(true);
  });

  it('disagrees when the agent claims PASS and the verdict is anything else', () => {
    for (const v of ['fail', 'unverified', 'halt', 'refused']) expect(claimAgrees('PASS', v)).toBe(false);
  });

  it('treats FAIL and PARTIAL as "not done"', () => {
    expect(claimAgrees('FAIL', 'fail')).toBe(true);
    expect(claimAgrees('PARTIAL', 'unverified')).toBe(true);
    expect(claimAgrees('PARTIAL', 'pass')).toBe(false);
  });
});
