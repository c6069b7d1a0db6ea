// The tool-loop watchdog: refuses a call repeated identically too many times in a row,
// halts a session that keeps repeating it, and caps total and consecutive failed calls.
import type { TurnVerifier, VerifierOutcome } from '../verifier-chain.js';
import type { RobustnessProfile, ToolCallRecord, TurnVerifyContext } from './context.js';

const CONTINUE: VerifierOutcome = { kind: 'continue' };

/**
 * A run of identical consecutive calls. The recent list holds only a few calls, so a
 * caller whose thresholds exceed it persists this instead (see `extendToolRun`).
 */
export interface ToolRun {
  name: string;
  args_hash: string;
  length: number;
}

function same(a: ToolCallRecord | ToolRun, b: ToolCallRecord): boolean {
  return a.name === b.name && a.args_hash === b.args_hash;
}

/** The run after `next`: one longer when `next` repeats it, otherwise a new run of one. */
export function extendToolRun(run: ToolRun | null, next: ToolCallRecord): ToolRun {
  if (run && same(run, next)) return { ...run, length: run.length + 1 };
  return { name: next.name, args_hash: next.args_hash, length: 1 };
}

/**
 * The run of calls identical to `next` (same name and same args_hash) that ends with
 * `next`. A different call in between breaks it. It can see at most `recent.length + 1`.
 */
function toolRunEndingWith(recent: readonly ToolCallRecord[], next: ToolCallRecord): ToolRun {
  let length = 1;
  for (let i = recent.length - 1; i >= 0 && same(recent[i]!, next); i--) length++;
  return { name: next.name, args_hash: next.args_hash, length };
}

/** Judges a run: halt at `halt_threshold`, refuse with feedback at `repeat_threshold`. */
export function checkToolRun(run: ToolRun, profile: RobustnessProfile): VerifierOutcome {
  const detail = { tool: run.name, run: run.length, repeat_threshold: profile.repeat_threshold, halt_threshold: profile.halt_threshold };
  if (run.length >= profile.halt_threshold) {
    return {
      kind: 'halt',
      reason: `Stopped: the agent made the same ${run.name} call with the same arguments ${run.length} times in a row, after being told to try a different approach. A person should look at what it is stuck on.`,
      detail,
    };
  }
  if (run.length >= profile.repeat_threshold) {
    return {
      kind: 'block',
      reason: `You have made the same ${run.name} call with the same arguments ${run.length} times in a row; repeating it will not give a different result. Try a different approach: read the error again, change the arguments, or use another tool. Repeating it ${profile.halt_threshold - run.length} more time(s) ends the session.`,
      detail,
    };
  }
  return CONTINUE;
}

/**
 * Checks the call about to run against the calls before it (`recent` excludes `next`).
 * Record every attempted call, including ones this refused, or the run never reaches
 * the halt threshold.
 * @example checkToolLoop(state.recent, toolCallRecord('Bash', input, 'shell'), profile)
 */
export function checkToolLoop(recent: readonly ToolCallRecord[], next: ToolCallRecord, profile: RobustnessProfile): VerifierOutcome {
  return checkToolRun(toolRunEndingWith(recent, next), profile);
}

/** Halts once the session has made more than `max_tool_calls` calls (counting the one being judged). */
export function checkMaxToolCalls(toolCallsMade: number, profile: RobustnessProfile): VerifierOutcome {
  const max = profile.max_tool_calls;
  if (max === null || toolCallsMade <= max) return CONTINUE;
  return {
    kind: 'halt',
    reason: `Stopped: the session reached its limit of ${max} tool calls. Raise max_tool_calls in the verifier profile if the task needs more.`,
    detail: { tool_calls_made: toolCallsMade, max_tool_calls: max },
  };
}

/** Counts the failed calls at the end of `recent`. */
function trailingFailures(recent: readonly ToolCallRecord[]): number {
  let n = 0;
  for (let i = recent.length - 1; i >= 0 && recent[i]!.failed === true; i--) n++;
  return n;
}

/** Refuses once `count` consecutive calls have failed; off when `failure_threshold` is null. */
export function checkFailureCount(count: number, profile: RobustnessProfile): VerifierOutcome {
  const threshold = profile.failure_threshold;
  if (threshold === null || count < threshold) return CONTINUE;
  return {
    kind: 'block',
    reason: `Your last ${count} tool calls all failed. Stop and work out why before the next call: read the errors, check your assumptions (paths, names, working directory), and change approach.`,
    detail: { consecutive_failures: count, failure_threshold: threshold },
  };
}

/** Refuses when the last `failure_threshold` recorded calls all failed (sees at most `recent.length`). */
export function checkFailureRun(recent: readonly ToolCallRecord[], profile: RobustnessProfile): VerifierOutcome {
  return checkFailureCount(trailingFailures(recent), profile);
}

/**
 * The watchdog for an in-loop check, judging the last recorded call against the ones
 * before it: any halt (call cap, loop) outranks a block (loop, failure run). At
 * `end_turn` there is no new call to judge, so it continues rather than re-judge history.
 */
export const toolLoopVerifier: TurnVerifier<TurnVerifyContext> = {
  name: 'tool_loop',
  posture: 'fail-open',
  verify(ctx) {
    if (ctx.stop_reason !== null) return Promise.resolve(CONTINUE);
    const recent = ctx.recent_tool_calls;
    const last = recent[recent.length - 1];
    const outcomes = [checkMaxToolCalls(ctx.tool_calls_made, ctx.profile)];
    if (last) outcomes.push(checkToolLoop(recent.slice(0, -1), last, ctx.profile), checkFailureRun(recent, ctx.profile));
    const decided = outcomes.find((o) => o.kind === 'halt') ?? outcomes.find((o) => o.kind === 'block') ?? CONTINUE;
    return Promise.resolve(decided);
  },
};
