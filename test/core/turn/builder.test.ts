import { describe, expect, it } from 'vitest';
import type { TurnVerifier } from '../../../src/core/verifier-chain.js';
import { DEFAULT_VERIFIER_ORDER, buildVerifierChain } from '../../../src/core/turn/builder.js';
import { DEFAULT_PROFILE, memoryStateStore, toolCallRecord, type TurnStateStore, type TurnVerifyContext } from '../../../src/core/turn/context.js';
import { executionListVerifier } from '../../../src/core/turn/execution-list.js';
import { MUTATION_NUDGE_FIRED_KEY, mutationNudgeVerifier, mutationTrackFromLog } from '../../../src/core/turn/mutation-nudge.js';
import { toolLoopVerifier } from '../../../src/core/turn/tool-loop.js';

const signal = new AbortController().signal;
const edit = toolCallRecord('Edit', { file_path: 'a.ts' }, 'write');
const ctx = (over: Partial<TurnVerifyContext> = {}): TurnVerifyContext => ({
  session_id: 's',
  iterations: 1,
  tool_calls_made: 1,
  final_text: 'done',
  recent_tool_calls: [edit],
  stop_reason: 'end_turn',
  profile: DEFAULT_PROFILE,
  ...over,
});
const fixed = (name: string, kind: 'continue' | 'block'): TurnVerifier<TurnVerifyContext> => ({
  name,
  posture: 'fail-open',
  verify: () => Promise.resolve(kind === 'continue' ? { kind } : { kind, reason: `${name} says no` }),
});

function build(config: Parameters<typeof buildVerifierChain>[0], parts: Parameters<typeof buildVerifierChain>[1]) {
  const r = buildVerifierChain(config, parts);
  if (!r.ok) throw new Error(r.reason);
  return r.value;
}

describe('buildVerifierChain', () => {
  it('runs the supplied verifiers in the default order and notes the ones it skipped', async () => {
    const store = memoryStateStore();
    const built = build(
      { enabled: true },
      {
        mutation_nudge: mutationNudgeVerifier(() => ({ track: mutationTrackFromLog([edit]), hasExecutionTool: true, store })),
        execution_list: executionListVerifier(() => []),
        tool_loop: toolLoopVerifier,
      },
    );
    expect(built.names).toEqual(['tool_loop', 'execution_list', 'mutation_nudge']);
    expect(built.notes).toEqual([
      'verifier "shell_stop_hooks" is in the order but not available here; skipped',
      'verifier "extension_stop_hooks" is in the order but not available here; skipped',
      'verifier "evidence_producers" is in the order but not available here; skipped',
      'verifier "scope_check" is in the order but not available here; skipped',
    ]);
    const r = await built.chain.run(ctx(), signal);
    expect(r).toMatchObject({ outcome: 'block', decidedBy: 'mutation_nudge' });
    expect(r.records.map((x) => x.name)).toEqual(['tool_loop', 'execution_list', 'mutation_nudge']);
  });

  it('follows a custom order and notes a supplied verifier left out of it', async () => {
    const built = build(
      { enabled: true, order: ['scope_check', 'shell_stop_hooks'] },
      {
        shell_stop_hooks: fixed('shell_stop_hooks', 'block'),
        scope_check: fixed('scope_check', 'block'),
        tool_loop: toolLoopVerifier,
      },
    );
    expect(built.names).toEqual(['scope_check', 'shell_stop_hooks']);
    expect(built.notes).toEqual(['verifier "tool_loop" is available but not in verifiers.order; not run']);
    expect((await built.chain.run(ctx(), signal)).decidedBy).toBe('scope_check');
  });

  it('runs a completion verifier left out of the order last anyway, and says so: the order cannot switch the completion gate off', async () => {
    const scope: TurnVerifier<TurnVerifyContext> = { ...fixed('scope_check', 'block'), completion: true };
    const built = build({ enabled: true, order: ['shell_stop_hooks'] }, { shell_stop_hooks: fixed('shell_stop_hooks', 'continue'), scope_check: scope });
    expect(built.names).toEqual(['shell_stop_hooks', 'scope_check']);
    expect(built.notes).toEqual(['verifier "scope_check" is not in verifiers.order; it runs last anyway, because it is part of the completion gate']);
    expect((await built.chain.run(ctx(), signal)).decidedBy).toBe('scope_check');
  });

  it('returns an error value naming an unknown verifier', () => {
    const r = buildVerifierChain({ enabled: true, order: ['tool_loop', 'tool-loop'] }, {});
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toContain('Unknown verifier "tool-loop"');
  });

  it('returns an error value for a verifier listed twice', () => {
    const r = buildVerifierChain({ enabled: true, order: ['tool_loop', 'tool_loop'] }, {});
    expect(!r.ok && r.reason).toContain('appears twice');
  });

  it('runs nothing when the kill switch is off', async () => {
    const built = build({ enabled: false }, { shell_stop_hooks: fixed('shell_stop_hooks', 'block') });
    expect(await built.chain.run(ctx(), signal)).toMatchObject({ outcome: 'continue', records: [] });
  });

  it('still rejects a bad order when the kill switch is off', () => {
    expect(buildVerifierChain({ enabled: false, order: ['nope'] }, {}).ok).toBe(false);
  });

  it('exports the documented default order', () => {
    expect(DEFAULT_VERIFIER_ORDER).toEqual(['shell_stop_hooks', 'extension_stop_hooks', 'tool_loop', 'execution_list', 'evidence_producers', 'scope_check', 'mutation_nudge']);
  });

  it('lets a tool-loop halt decide mid-turn before later stages run', async () => {
    const built = build({ enabled: true }, { tool_loop: toolLoopVerifier, scope_check: fixed('scope_check', 'block') });
    const bash = toolCallRecord('Bash', { command: 'npm test' }, 'shell');
    const r = await built.chain.run(ctx({ stop_reason: null, recent_tool_calls: Array.from({ length: 8 }, () => bash) }), signal);
    expect(r).toMatchObject({ outcome: 'halt', decidedBy: 'tool_loop' });
    expect(r.records.at(-1)).toEqual({ name: 'scope_check', outcome: 'skipped' });
  });
});

describe('a throwing verifier in the built chain', () => {
  const throwingStore: TurnStateStore = {
    get: () => {
      throw new Error('state file unreadable');
    },
    set: () => undefined,
  };

  it('is skipped as continue when fail-open (execution list whose transcript cannot be read)', async () => {
    const built = build(
      { enabled: true },
      {
        execution_list: executionListVerifier(() => {
          throw new Error('ENOENT transcript');
        }),
      },
    );
    const r = await built.chain.run(ctx(), signal);
    expect(r.outcome).toBe('continue');
    expect(r.records[0]).toMatchObject({ name: 'execution_list', outcome: 'error', reason: 'ENOENT transcript' });
  });

  it('is skipped as continue when fail-open (mutation nudge whose state store throws)', async () => {
    const built = build(
      { enabled: true },
      {
        mutation_nudge: mutationNudgeVerifier(() => ({ track: mutationTrackFromLog([edit]), hasExecutionTool: true, store: throwingStore })),
      },
    );
    const r = await built.chain.run(ctx(), signal);
    expect(r).toMatchObject({ outcome: 'continue' });
    expect(r.records[0]).toMatchObject({ outcome: 'error', reason: 'state file unreadable' });
  });

  it('is skipped as continue when fail-open (tool loop given a broken context)', async () => {
    const built = build({ enabled: true }, { tool_loop: toolLoopVerifier });
    const broken = { ...ctx({ stop_reason: null }), profile: undefined } as unknown as TurnVerifyContext;
    expect((await built.chain.run(broken, signal)).outcome).toBe('continue');
  });

  it('blocks the stop when fail-closed, naming the check that could not run', async () => {
    const built = build(
      { enabled: true },
      {
        execution_list: executionListVerifier(() => Promise.reject(new Error('ENOENT transcript')), { posture: 'fail-closed' }),
        mutation_nudge: mutationNudgeVerifier(() => ({ track: mutationTrackFromLog([edit]), hasExecutionTool: true, store: throwingStore }), { posture: 'fail-closed' }),
      },
    );
    const r = await built.chain.run(ctx(), signal);
    expect(r).toMatchObject({ outcome: 'block', decidedBy: 'execution_list' });
    expect(r.reason).toContain('ENOENT transcript');
    expect(r.records.map((x) => x.outcome)).toEqual(['block', 'skipped']);
  });

  it('does not spend the one nudge when an earlier stage already blocked', async () => {
    const store = memoryStateStore();
    const built = build(
      { enabled: true },
      {
        execution_list: executionListVerifier(() => [{ text: 'x', status: 'pending' }]),
        mutation_nudge: mutationNudgeVerifier(() => ({ track: mutationTrackFromLog([edit]), hasExecutionTool: true, store })),
      },
    );
    expect((await built.chain.run(ctx(), signal)).decidedBy).toBe('execution_list');
    expect(store.get(MUTATION_NUDGE_FIRED_KEY)).toBeUndefined();
  });
});
