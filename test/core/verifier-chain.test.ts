import { describe, expect, it } from 'vitest';
import { VerifierChain, type TurnVerifier, type VerifierOutcome } from '../../src/core/verifier-chain.js';

function v(name: string, out: VerifierOutcome | Error, posture: 'fail-open' | 'fail-closed' = 'fail-open', calls: string[] = []): TurnVerifier<null> {
  return {
    name,
    posture,
    verify: () => {
      calls.push(name);
      return out instanceof Error ? Promise.reject(out) : Promise.resolve(out);
    },
  };
}
const signal = new AbortController().signal;

describe('VerifierChain', () => {
  it('continues when every verifier continues', async () => {
    const r = await new VerifierChain([v('a', { kind: 'continue' }), v('b', { kind: 'continue' })]).run(null, signal);
    expect(r).toMatchObject({ outcome: 'continue', decidedBy: null });
    expect(r.records.map((x) => x.outcome)).toEqual(['continue', 'continue']);
  });

  it('lets the first non-continue win and skips the rest', async () => {
    const calls: string[] = [];
    const r = await new VerifierChain([
      v('a', { kind: 'continue' }, 'fail-open', calls),
      v('b', { kind: 'block', reason: 'no' }, 'fail-open', calls),
      v('c', { kind: 'halt', reason: 'stop' }, 'fail-open', calls),
    ]).run(null, signal);
    expect(r).toMatchObject({ outcome: 'block', decidedBy: 'b', reason: 'no' });
    expect(calls).toEqual(['a', 'b']);
    expect(r.records.map((x) => x.outcome)).toEqual(['continue', 'block', 'skipped']);
  });

  it('treats a throwing fail-open verifier as continue and records the error', async () => {
    const r = await new VerifierChain([v('a', new Error('boom')), v('b', { kind: 'continue' })]).run(null, signal);
    expect(r.outcome).toBe('continue');
    expect(r.records[0]).toMatchObject({ name: 'a', outcome: 'error', reason: 'boom' });
  });

  it('blocks when a fail-closed verifier throws', async () => {
    const r = await new VerifierChain([v('a', new Error('boom'), 'fail-closed'), v('b', { kind: 'continue' })]).run(null, signal);
    expect(r).toMatchObject({ outcome: 'block', decidedBy: 'a' });
    expect(r.reason).toContain('boom');
  });

  it('runs nothing when the kill switch is off', async () => {
    const calls: string[] = [];
    const r = await new VerifierChain([v('a', { kind: 'block', reason: 'x' }, 'fail-open', calls)], false).run(null, signal);
    expect(r.outcome).toBe('continue');
    expect(calls).toEqual([]);
  });
});
