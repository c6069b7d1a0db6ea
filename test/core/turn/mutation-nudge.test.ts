import { describe, expect, it } from 'vitest';
import { DEFAULT_PROFILE, memoryStateStore, toolCallRecord, type ToolCallRecord, type TurnVerifyContext } from '../../../src/core/turn/context.js';
import {
  EMPTY_MUTATION_TRACK,
  MUTATION_NUDGE_FIRED_KEY,
  checkMutationNudge,
  hasUncheckedMutation,
  mutationNudgeVerifier,
  mutationTrackFromLog,
  observeCall,
  type MutationTrack,
} from '../../../src/core/turn/mutation-nudge.js';

const signal = new AbortController().signal;
const edit = toolCallRecord('Edit', { file_path: 'a.ts' }, 'write');
const test = toolCallRecord('Bash', { command: 'npm test' }, 'shell');
const read = toolCallRecord('Read', { file_path: 'a.ts' }, 'read');
const shellWrite = toolCallRecord('Bash', { command: 'echo x > f' }, 'shell', { mutation: true, execution: false });
const genAndRun = toolCallRecord('Bash', { command: 'python gen.py > out.txt' }, 'shell', { mutation: true, execution: true });

describe('mutationTrackFromLog', () => {
  it.each([
    ['no calls', [], false],
    ['only reads', [read, read], false],
    ['an edit with nothing after it', [read, edit], true],
    ['an edit followed only by reads', [edit, read, read], true],
    ['an edit followed by a run', [edit, test], false],
    ['a run followed by a later edit', [test, edit], true],
    ['a shell command recognised as a write, unchecked', [test, shellWrite], true],
    ['a call that both writes and runs code', [edit, genAndRun], false],
    ['a run well before the last of several edits', [edit, test, edit, read], true],
  ] as [string, ToolCallRecord[], boolean][])('%s → unchecked mutation: %s', (_name, log, unchecked) => {
    expect(hasUncheckedMutation(mutationTrackFromLog(log))).toBe(unchecked);
  });

  it('gives the same two integers as observing calls one at a time', () => {
    const log = [read, edit, test, edit, read];
    const stepwise = log.reduce<MutationTrack>((t, rec, i) => observeCall(t, rec, i), EMPTY_MUTATION_TRACK);
    expect(stepwise).toEqual({ last_mutation_index: 3, last_execution_index: 2 });
    expect(mutationTrackFromLog(log)).toEqual(stepwise);
  });

  it('leaves the shared empty track untouched', () => {
    observeCall(EMPTY_MUTATION_TRACK, edit, 0);
    expect(EMPTY_MUTATION_TRACK).toEqual({ last_mutation_index: null, last_execution_index: null });
  });
});

describe('checkMutationNudge', () => {
  const unchecked = mutationTrackFromLog([edit]);

  it('nudges once, then never again in the session', () => {
    const store = memoryStateStore();
    const first = checkMutationNudge('end_turn', { track: unchecked, hasExecutionTool: true, store });
    expect(first.kind).toBe('block');
    if (first.kind === 'block') expect(first.reason).toMatch(/run a quick check.*tests, the build or the linter/);
    expect(store.get(MUTATION_NUDGE_FIRED_KEY)).toBe(true);
    const later = mutationTrackFromLog([edit, read, edit]);
    expect(checkMutationNudge('end_turn', { track: unchecked, hasExecutionTool: true, store }).kind).toBe('continue');
    expect(checkMutationNudge('end_turn', { track: later, hasExecutionTool: true, store }).kind).toBe('continue');
  });

  it('stays silent when the agent has no tool that runs code', () => {
    const store = memoryStateStore();
    expect(checkMutationNudge('end_turn', { track: unchecked, hasExecutionTool: false, store }).kind).toBe('continue');
    expect(store.get(MUTATION_NUDGE_FIRED_KEY)).toBeUndefined();
  });

  it('is satisfied by a later execution', () => {
    const store = memoryStateStore();
    expect(checkMutationNudge('end_turn', { track: mutationTrackFromLog([edit, test]), hasExecutionTool: true, store }).kind).toBe('continue');
    expect(store.get(MUTATION_NUDGE_FIRED_KEY)).toBeUndefined();
  });

  it('stays silent when nothing changed', () => {
    expect(checkMutationNudge('end_turn', { track: EMPTY_MUTATION_TRACK, hasExecutionTool: true, store: memoryStateStore() }).kind).toBe('continue');
  });

  it('never vetoes mid-turn and does not spend its one nudge there', () => {
    const store = memoryStateStore();
    expect(checkMutationNudge(null, { track: unchecked, hasExecutionTool: true, store }).kind).toBe('continue');
    expect(store.get(MUTATION_NUDGE_FIRED_KEY)).toBeUndefined();
    expect(checkMutationNudge('end_turn', { track: unchecked, hasExecutionTool: true, store }).kind).toBe('block');
  });
});

describe('mutationNudgeVerifier', () => {
  const ctx = (stop_reason: 'end_turn' | null): TurnVerifyContext => ({
    session_id: 's',
    iterations: 1,
    tool_calls_made: 1,
    final_text: null,
    recent_tool_calls: [edit],
    stop_reason,
    profile: DEFAULT_PROFILE,
  });

  it('reads its input through the getter and fires once per store', async () => {
    const store = memoryStateStore();
    const v = mutationNudgeVerifier(() => ({ track: mutationTrackFromLog([edit]), hasExecutionTool: true, store }));
    expect(v).toMatchObject({ name: 'mutation_nudge', posture: 'fail-open' });
    expect((await v.verify(ctx(null), signal)).kind).toBe('continue');
    expect((await v.verify(ctx('end_turn'), signal)).kind).toBe('block');
    expect((await v.verify(ctx('end_turn'), signal)).kind).toBe('continue');
  });
});
