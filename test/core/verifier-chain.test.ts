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

describe('VerifierChain completion checks', () => {
  const completion = (name: string, out: VerifierOutcome | Error, calls: string[]): TurnVerifier<null> => ({ ...v(name, out, 'fail-closed', calls), completion: true });

  it('still runs every completion check after a refusal and names every refusal in the verdict', async () => {
    const calls: string[] = [];
    const r = await new VerifierChain([
      v('todo', { kind: 'block', reason: 'Finish your list.' }, 'fail-open', calls),
      completion('tests', { kind: 'block', reason: 'The test fails.', summary: 'the test fails' }, calls),
      v('nudge', { kind: 'block', reason: 'Run it.' }, 'fail-open', calls),
      completion('scope', { kind: 'block', reason: 'package.json changed.', summary: 'package.json changed' }, calls),
    ]).run(null, signal);
    expect(calls).toEqual(['todo', 'tests', 'scope']);
    expect(r).toMatchObject({ outcome: 'block', decidedBy: 'todo', failed: ['todo', 'tests', 'scope'] });
    expect(r.records.map((x) => x.outcome)).toEqual(['block', 'block', 'skipped', 'block']);
    expect(r.records[1]).toMatchObject({ summary: 'the test fails' });
    expect(r.reason).toContain('3 checks refuse this stop (todo, tests, scope)');
    for (const reason of ['Finish your list.', 'The test fails.', 'package.json changed.']) expect(r.reason).toContain(reason);
  });

  it('runs a completion check that throws after a refusal, and counts it as a refusal when fail-closed', async () => {
    const calls: string[] = [];
    const r = await new VerifierChain([completion('tests', { kind: 'block', reason: 'no' }, calls), completion('scope', new Error('disk gone'), calls)]).run(null, signal);
    expect(r.failed).toEqual(['tests', 'scope']);
    expect(r.records[1]).toMatchObject({ outcome: 'block', summary: 'the check "scope" could not run: disk gone' });
  });

  it('lets a halt end the chain at once, completion checks included', async () => {
    const calls: string[] = [];
    const r = await new VerifierChain([v('hooks', { kind: 'halt', reason: 'stop now' }, 'fail-open', calls), completion('tests', { kind: 'continue' }, calls)]).run(null, signal);
    expect(r).toMatchObject({ outcome: 'halt', decidedBy: 'hooks', failed: ['hooks'] });
    expect(calls).toEqual(['hooks']);
    expect(r.records.map((x) => x.outcome)).toEqual(['halt', 'skipped']);
  });

  it('keeps one refusal reason exactly as the verifier wrote it', async () => {
    const r = await new VerifierChain([completion('tests', { kind: 'block', reason: 'The test fails.' }, [])]).run(null, signal);
    expect(r.reason).toBe('The test fails.');
  });
});
