// The goal gate, fail-closed: a session's objective may name a gate command; the stop is
// allowed only when the global stop hooks and that command all pass.
import { checkGateCommand } from '../../core/turn/goal-gate-command.js';
import type { TurnVerifier, VerifierOutcome } from '../../core/verifier-chain.js';
import type { StopHookContext } from './context.js';
import { combineStopHooks, notRunResult, runStopHook, runStopHooks, type StopHookResult, type StopHookRunOptions, type StopHookSpec } from './shell.js';

/** Who wrote the gate command: only an operator's is run without vetting. */
type GateCommandSource = 'operator' | 'model' | 'untrusted';

/** A session's objective and the command that proves it met. */
export interface GoalObjective {
  /** The goal in words; quoted in the block reason so the model knows what is unmet. */
  text: string;
  /** Shell text run as `/bin/sh -c` in the worktree, after {@link checkGateCommand} unless `source` is `operator`. */
  gate_command: string;
  source: GateCommandSource;
  /** Seconds before the gate command is killed; default that of any stop hook (`DEFAULT_STOP_HOOK_TIMEOUT_SECS`). */
  timeout_s?: number;
}

/** What the goal gate checks. */
export interface GoalGateConfig {
  /** The operator's `[[stop_hooks]]`; each must pass too. */
  globalHooks: readonly StopHookSpec[];
  objective: GoalObjective;
}

/** The name the gate command carries in results and reasons. */
const GOAL_GATE_HOOK_NAME = 'goal_gate_command';

/** Runs the gate command, or refuses it unrun when its source is not trusted and it fails the check. */
function runGateCommand(objective: GoalObjective, ctx: StopHookContext, opts: StopHookRunOptions): Promise<StopHookResult> {
  if (objective.source !== 'operator') {
    const check = checkGateCommand(objective.gate_command);
    if (!check.ok) return Promise.resolve(notRunResult(GOAL_GATE_HOOK_NAME, `was refused and not run (its source is ${objective.source}): ${check.reason}`));
  }
  const spec: StopHookSpec = { name: GOAL_GATE_HOOK_NAME, command: objective.gate_command };
  if (objective.timeout_s !== undefined) spec.timeout_s = objective.timeout_s;
  return runStopHook(spec, ctx, opts);
}

/**
 * Runs the global hooks and the gate command together and combines them fail-closed:
 * a hook or gate command that cannot give a verdict (bad exit code, timeout, refused,
 * spawn failure) vetoes the stop, because an unchecked goal is not a met goal.
 * @example const outcome = await checkGoalGate({globalHooks, objective}, ctx, {cwd: worktree, signal})
 */
export async function checkGoalGate(config: GoalGateConfig, ctx: StopHookContext, opts: StopHookRunOptions): Promise<VerifierOutcome> {
  const [global, gate] = await Promise.all([runStopHooks(config.globalHooks, ctx, opts), runGateCommand(config.objective, ctx, opts)]);
  const outcome = combineStopHooks([...global, gate], 'fail-closed');
  if (outcome.kind !== 'block') return outcome;
  return { ...outcome, reason: `The goal is not verified yet: ${JSON.stringify(config.objective.text)}.\n${outcome.reason}` };
}

/**
 * The chain stage `goal_gate`, fail-closed.
 * @example new VerifierChain([goalGateVerifier({globalHooks: config.stop_hooks, objective}, {cwd: worktree}), …])
 */
export function goalGateVerifier(config: GoalGateConfig, opts: Omit<StopHookRunOptions, 'signal'>): TurnVerifier<StopHookContext> {
  return {
    name: 'goal_gate',
    posture: 'fail-closed',
    verify(ctx, signal) {
      return checkGoalGate(config, ctx, { ...opts, signal });
    },
  };
}
