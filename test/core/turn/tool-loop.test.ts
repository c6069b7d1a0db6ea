import { describe, expect, it } from 'vitest';
import { DEFAULT_PROFILE, clampProfile, toolCallRecord, type ToolCallRecord, type TurnVerifyContext } from '../../../src/core/turn/context.js';
import { checkFailureCount, checkFailureRun, checkMaxToolCalls, checkToolLoop, checkToolRun, extendToolRun, toolLoopVerifier, type ToolRun } from '../../../src/core/turn/tool-loop.js';

const signal = new AbortController().signal;
const profile = DEFAULT_PROFILE; // repeat 5, halt 8
const bash = (command: string, failed?: boolean): ToolCallRecord => toolCallRecord('Bash', { command }, 'shell', failed === undefined ? {} : { failed });
const read = (file_path: string): ToolCallRecord => toolCallRecord('Read', { file_path }, 'read');
const times = (n: number, rec: ToolCallRecord): ToolCallRecord[] => Array.from({ length: n }, () => rec);

describe('checkToolLoop', () => {
  const cases: [string, ToolCallRecord[], ToolCallRecord, 'continue' | 'block' | 'halt'][] = [
    ['allows a first call', [], bash('npm test'), 'continue'],
    ['allows a run one below the repeat threshold', times(3, bash('npm test')), bash('npm test'), 'continue'],
    ['blocks a run at the repeat threshold', times(4, bash('npm test')), bash('npm test'), 'block'],
    ['blocks a run above the repeat threshold and below halt', times(6, bash('npm test')), bash('npm test'), 'block'],
    ['halts, not blocks, a run at the halt threshold', times(7, bash('npm test')), bash('npm test'), 'halt'],
    ['halts a run above the halt threshold', times(8, bash('npm test')), bash('npm test'), 'halt'],
    ['lets different arguments break the run', [...times(4, bash('npm test')), bash('npm test -- a.ts'), ...times(3, bash('npm test'))], bash('npm test'), 'continue'],
    ['lets a different tool in between break the run', [...times(4, bash('npm test')), read('a.ts'), ...times(3, bash('npm test'))], bash('npm test'), 'continue'],
    ['does not count earlier identical calls that were not consecutive', [bash('ls'), read('x'), bash('ls'), read('x'), bash('ls'), read('x'), bash('ls')], read('x'), 'continue'],
    ['treats a same-named tool with other arguments as a different call', times(7, bash('npm test')), bash('npm run build'), 'continue'],
  ];
  it.each(cases)('%s', (_name, recent, next, kind) => {
    expect(checkToolLoop(recent, next, profile).kind).toBe(kind);
  });

  it('tells the model how many times it repeated the call and to try a different approach', () => {
    const out = checkToolLoop(times(4, bash('npm test')), bash('npm test'), profile);
    expect(out.kind).toBe('block');
    if (out.kind !== 'block') return;
    expect(out.reason).toContain('same Bash call with the same arguments 5 times in a row');
    expect(out.reason).toContain('different approach');
    expect(out.detail).toMatchObject({ run: 5, repeat_threshold: 5, halt_threshold: 8 });
  });

  it('follows a clamped custom profile', () => {
    const p = clampProfile({ repeat_threshold: 2, halt_threshold: 3 }).profile;
    expect(checkToolLoop([read('a')], read('a'), p).kind).toBe('block');
    expect(checkToolLoop([read('a'), read('a')], read('a'), p).kind).toBe('halt');
  });
});

describe('extendToolRun and checkToolRun', () => {
  it('counts runs longer than the recent list can show, so high thresholds still fire', () => {
    const p = clampProfile({ repeat_threshold: 20, halt_threshold: 30 }).profile;
    let run: ToolRun | null = null;
    const kinds: string[] = [];
    for (let i = 0; i < 30; i++) {
      run = extendToolRun(run, bash('npm test'));
      kinds.push(checkToolRun(run, p).kind);
    }
    expect(kinds.indexOf('block')).toBe(19);
    expect(kinds.indexOf('halt')).toBe(29);
  });

  it('starts a new run of one when the call differs', () => {
    const run = extendToolRun({ name: 'Bash', args_hash: bash('a').args_hash, length: 9 }, bash('b'));
    expect(run.length).toBe(1);
  });
});

describe('checkMaxToolCalls', () => {
  const p = clampProfile({ max_tool_calls: 10 }).profile;
  it.each([
    [9, 'continue'],
    [10, 'continue'],
    [11, 'halt'],
  ] as const)('with a limit of 10, %i calls → %s', (made, kind) => {
    expect(checkMaxToolCalls(made, p).kind).toBe(kind);
  });

  it('never halts when there is no limit', () => {
    expect(checkMaxToolCalls(1_000_000, profile).kind).toBe('continue');
  });
});

describe('checkFailureRun', () => {
  const p = clampProfile({ failure_threshold: 3 }).profile;
  it.each([
    ['allows two failures in a row under a threshold of 3', [bash('a', true), bash('b', true)], 'continue'],
    ['blocks three failures in a row', [bash('a', true), bash('b', true), bash('c', true)], 'block'],
    ['lets a success reset the run', [bash('a', true), bash('b', true), bash('ok'), bash('c', true)], 'continue'],
    ['does not count calls whose result is not known yet as failures', [bash('a', true), bash('b', true), bash('c')], 'continue'],
  ] as const)('%s', (_name, recent, kind) => {
    expect(checkFailureRun([...recent], p).kind).toBe(kind);
  });

  it('is off when failure_threshold is null', () => {
    expect(checkFailureRun(times(8, bash('x', true)), profile).kind).toBe('continue');
  });

  it('judges a persisted count past the recent window', () => {
    const q = clampProfile({ failure_threshold: 20 }).profile;
    expect(checkFailureCount(19, q).kind).toBe('continue');
    expect(checkFailureCount(20, q).kind).toBe('block');
  });
});

describe('toolLoopVerifier', () => {
  const ctx = (recent: ToolCallRecord[], over: Partial<TurnVerifyContext> = {}): TurnVerifyContext => ({
    session_id: 's',
    iterations: 1,
    tool_calls_made: recent.length,
    final_text: null,
    recent_tool_calls: recent,
    stop_reason: null,
    profile,
    ...over,
  });

  it('judges the last recorded call against the ones before it', async () => {
    expect((await toolLoopVerifier.verify(ctx(times(4, bash('t'))), signal)).kind).toBe('continue');
    expect((await toolLoopVerifier.verify(ctx(times(5, bash('t'))), signal)).kind).toBe('block');
    expect((await toolLoopVerifier.verify(ctx(times(8, bash('t'))), signal)).kind).toBe('halt');
  });

  it('lets a halt from the call cap outrank a block from a loop', async () => {
    const p = clampProfile({ max_tool_calls: 3 }).profile;
    const out = await toolLoopVerifier.verify(ctx(times(5, bash('t')), { profile: p, tool_calls_made: 5 }), signal);
    expect(out.kind).toBe('halt');
  });

  it('lets a loop halt outrank a failure-run block', async () => {
    const p = clampProfile({ failure_threshold: 1 }).profile;
    const out = await toolLoopVerifier.verify(ctx(times(8, bash('t', true)), { profile: p }), signal);
    expect(out).toMatchObject({ kind: 'halt' });
  });

  it('continues with no calls recorded', async () => {
    expect((await toolLoopVerifier.verify(ctx([]), signal)).kind).toBe('continue');
  });

  it('does not re-judge history at end_turn, when no new call is being made', async () => {
    expect((await toolLoopVerifier.verify(ctx(times(8, bash('t')), { stop_reason: 'end_turn' }), signal)).kind).toBe('continue');
  });
});
