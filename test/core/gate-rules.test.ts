// The decisions of one hook call that need no I/O: which shell writes are judged, which stage's
// verdict wins, and when a refused stop ends the turn UNVERIFIED.
import { describe, expect, it } from 'vitest';
import { gatedShellWrites, stopVerdict, toolCallVerdict, worstOutcome } from '../../src/core/gate-rules.js';
import { allow, block } from '../../src/core/verdict.js';
import type { ChainResult } from '../../src/core/verifier-chain.js';

const refused = (failed: string[]): ChainResult => ({ outcome: 'block', decidedBy: failed[0] ?? null, failed, reason: 'fix the tests', records: [] });

describe('gate rules', () => {
  it('leaves deletions to the scope check and judges every other shell write', () => {
    const t = (kind: 'write' | 'delete' | 'create') => ({ path: 'x', via: 'v', kind, literal: true, recursive: false });
    expect(gatedShellWrites([t('write'), t('delete'), t('create')]).map((x) => x.kind)).toEqual(['write', 'create']);
  });

  it('ranks a watchdog halt over a write refusal over a watchdog block over an allow', () => {
    const refusal = block('write.not_allowed', 'outside');
    expect(toolCallVerdict(refusal, { kind: 'halt', reason: 'looping' })).toMatchObject({ decision: 'halt', rule: 'tool_loop' });
    expect(toolCallVerdict(refusal, { kind: 'block', reason: 'same call' })).toBe(refusal);
    expect(toolCallVerdict(allow('write.allowed'), { kind: 'block', reason: 'same call' })).toMatchObject({ decision: 'block', rule: 'tool_loop' });
    expect(toolCallVerdict(allow('write.allowed'), { kind: 'continue' })).toEqual(allow('write.allowed'));
    expect(worstOutcome([{ kind: 'continue' }, { kind: 'block', reason: 'b' }, { kind: 'halt', reason: 'h' }])).toMatchObject({ kind: 'halt' });
  });

  it('refuses a stop and counts it, until the cap: then the turn ends UNVERIFIED with a note naming the checks', () => {
    expect(stopVerdict(refused(['evidence_producers']), 0, 3)).toEqual({ verdict: block('evidence_producers', 'fix the tests'), consecutiveBlocks: 1 });
    const last = stopVerdict(refused(['evidence_producers', 'scope_check']), 3, 3);
    expect(last.consecutiveBlocks).toBe(0);
    expect(last.verdict).toMatchObject({
      decision: 'allow',
      rule: 'completion.unverified',
      note: expect.stringContaining('UNVERIFIED after 3 refused attempts to finish; the last checks to fail: evidence_producers, scope_check'),
    });
    expect(stopVerdict({ ...refused([]), outcome: 'continue' }, 2, 3)).toEqual({ verdict: allow('completion.verified'), consecutiveBlocks: 0 });
    expect(stopVerdict({ ...refused(['stop_hook']), outcome: 'halt' }, 2, 3)).toMatchObject({ verdict: { decision: 'halt', rule: 'stop_hook' }, consecutiveBlocks: 0 });
  });
});
