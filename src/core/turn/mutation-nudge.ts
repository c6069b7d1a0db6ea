// The mutation-evidence nudge: when the agent changed files and ran nothing afterwards,
// refuse its stop once per session with a reminder to run a quick check first.
import type { TurnVerifier, VerifierOutcome } from '../verifier-chain.js';
import type { ToolCallRecord, TurnStateStore, TurnVerifyContext, VerifierOptions } from './context.js';

/**
 * All the nudge needs to know about a session's calls: where the last mutation and the
 * last execution were (0-based positions in the session's call log; null = none yet).
 * Two integers to persist instead of the whole history.
 */
export interface MutationTrack {
  last_mutation_index: number | null;
  last_execution_index: number | null;
}

/** A session that has made no calls yet. */
export const EMPTY_MUTATION_TRACK: Readonly<MutationTrack> = Object.freeze({ last_mutation_index: null, last_execution_index: null });

/** The store key recording that the nudge has fired; once set, it never fires again in the session. */
export const MUTATION_NUDGE_FIRED_KEY = 'mutation_nudge.fired';

/** The track after call number `index` (its 0-based position in the session). */
export function observeCall(track: MutationTrack, rec: Pick<ToolCallRecord, 'mutation' | 'execution'>, index: number): MutationTrack {
  return {
    last_mutation_index: rec.mutation ? index : track.last_mutation_index,
    last_execution_index: rec.execution ? index : track.last_execution_index,
  };
}

/** The track of a whole ordered call log, for callers that keep the full history. */
export function mutationTrackFromLog(log: readonly Pick<ToolCallRecord, 'mutation' | 'execution'>[]): MutationTrack {
  return log.reduce<MutationTrack>((t, rec, i) => observeCall(t, rec, i), { ...EMPTY_MUTATION_TRACK });
}

/**
 * True when the last mutation has no execution at or after it. A call that both writes
 * and runs code (`gen.py > out.txt`) counts as checked: it ran the code it touched.
 */
export function hasUncheckedMutation(track: MutationTrack): boolean {
  const m = track.last_mutation_index;
  if (m === null) return false;
  const e = track.last_execution_index;
  return e === null || e < m;
}

/** What the nudge is given besides the stop reason. */
export interface MutationNudgeInput {
  track: MutationTrack;
  /** False when the agent has no tool that runs code: asking it to run a check would be noise. */
  hasExecutionTool: boolean;
  /** Per-session store; the nudge writes `MUTATION_NUDGE_FIRED_KEY` when it fires. */
  store: TurnStateStore;
}

/**
 * Refuses a real stop once per session when files changed and nothing ran afterwards.
 * Mid-turn (`stopReason` null) it neither judges nor spends its one nudge.
 */
export function checkMutationNudge(stopReason: 'end_turn' | null, input: MutationNudgeInput): VerifierOutcome {
  if (stopReason !== 'end_turn' || !input.hasExecutionTool) return { kind: 'continue' };
  if (!hasUncheckedMutation(input.track)) return { kind: 'continue' };
  if (input.store.get<boolean>(MUTATION_NUDGE_FIRED_KEY) === true) return { kind: 'continue' };
  input.store.set(MUTATION_NUDGE_FIRED_KEY, true);
  return {
    kind: 'block',
    reason:
      'You changed files and have not run anything since to check them. Before finishing, run a quick check that covers the change — the tests, the build or the linter — and fix what it reports. (This reminder appears once.)',
    detail: { ...input.track },
  };
}

/**
 * The nudge as a chain stage; place it last, so that its one nudge is spent only on a
 * stop that every other check let through.
 * @example mutationNudgeVerifier(() => ({track, hasExecutionTool: true, store}))
 */
export function mutationNudgeVerifier<C extends TurnVerifyContext>(getInput: (ctx: C) => MutationNudgeInput | Promise<MutationNudgeInput>, options: VerifierOptions = {}): TurnVerifier<C> {
  return {
    name: 'mutation_nudge',
    posture: options.posture ?? 'fail-open',
    async verify(ctx) {
      if (ctx.stop_reason !== 'end_turn') return { kind: 'continue' };
      return checkMutationNudge(ctx.stop_reason, await getInput(ctx));
    },
  };
}
