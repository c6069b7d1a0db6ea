// Builds and runs the Stop-side verifier chain for a session: in-session (every stage, in
// the configured order) and at the end of the session (the authoritative producers + scope).
import { join } from 'node:path';
import { scopeExclusions, type Policy } from '../core/policy.js';
import { isInside, relativeInside } from '../core/write-gate.js';
import type { TurnVerifyContext } from '../core/turn/context.js';
import { buildVerifierChain, type VerifierParts } from '../core/turn/builder.js';
import { executionListVerifier } from '../core/turn/execution-list.js';
import { mutationNudgeVerifier } from '../core/turn/mutation-nudge.js';
import { toolLoopVerifier } from '../core/turn/tool-loop.js';
import { VerifierChain, type ChainResult } from '../core/verifier-chain.js';
import { extensionStopHooksVerifier } from '../runtime/stop-hooks/extension.js';
import { goalGateVerifier } from '../runtime/stop-hooks/goal-gate.js';
import { shellStopHooksVerifier } from '../runtime/stop-hooks/shell.js';
import type { StopHookContext } from '../runtime/stop-hooks/context.js';
import { producersVerifier, scopeVerifier, SCOPE_BUDGET_S, type StopContext } from '../runtime/stop-verifiers.js';
import type { Baseline } from '../runtime/scope-baseline.js';
import { loadBaselineTexts, loadSessionBaseline } from '../runtime/session-files.js';
import { appendSessionLog, SESSION_FILES } from '../runtime/session-layout.js';
import { readVerifiedJsonHeld } from '../runtime/verified-cache.js';
import { sessionScopeCache } from '../runtime/scope-cache.js';
import { settledTranscriptTodos } from '../runtime/transcript.js';
import { AWAITED_TASK_CALL_KEY } from '../core/turn/task-tools.js';
import { emptyTurnState, kvStore, readTurnState, type TurnState } from '../runtime/turn-state.js';
import { profileOf } from './pre-tool.js';
import { sandboxWrap } from '../core/sandbox.js';

/** Everything any stage of the chain may read. */
type StopChainContext = TurnVerifyContext & StopContext & StopHookContext;

/** What the agent said when it wanted to stop. */
export interface StopInput {
  lastMessage: string | null;
  transcriptPath: string | null;
}

/** The chain's verdict plus the turn state the stages changed (to be saved by the caller). */
export interface StopChainRun {
  result: ChainResult;
  state: TurnState;
  notes: string[];
}

function contextOf(policy: Policy, baseline: Baseline | null, dir: string, state: TurnState, input: StopInput, exclude: string[], deadline: boolean): StopChainContext {
  return {
    session_id: policy.session_id,
    iterations: state.stops + 1,
    tool_calls_made: state.tool_calls_made,
    final_text: input.lastMessage ?? '',
    recent_tool_calls: state.recent,
    stop_reason: 'end_turn',
    profile: profileOf(policy),
    policy,
    baseline,
    exclude: [...exclude, ...stateInside(policy)],
    scopeBudgetS: deadline ? SCOPE_BUDGET_S : null,
    texts: () => {
      if (baseline?.texts_sha256 === undefined) return null;
      const read = loadBaselineTexts(baseline.texts_sha256, dir);
      if (read.ok) return read.value;
      appendSessionLog(join(dir, SESSION_FILES.log), { kind: 'tamper', what: read.reason, effect: 'the scope refusal names changed control files without their lines' });
      return null;
    },
  };
}

/** The state folder when it lies inside the worktree (`GATEHOUSE_HOME` there): Gatehouse's own writes are never the agent's changes. */
export function stateInside(policy: Policy): string[] {
  return isInside(policy.worktree, policy.state_dir) && policy.state_dir !== policy.worktree ? [relativeInside(policy.worktree, policy.state_dir)] : [];
}

/** The in-session chain for a policy, in its order, with its kill switch; `work` is the turn state its stages may change. */
function buildStopChain(policy: Policy, input: StopInput, work: TurnState): ReturnType<typeof buildVerifierChain<StopContext & StopHookContext>> {
  const store = kvStore(work);
  const cwd = policy.worktree;
  const parts: VerifierParts<StopChainContext> = {
    tool_loop: toolLoopVerifier,
    execution_list: executionListVerifier(async () => {
      const awaited = store.get<string | null>(AWAITED_TASK_CALL_KEY) ?? null;
      const read = await settledTranscriptTodos(input.transcriptPath, awaited);
      // A call that never reached this transcript (a subagent's) is not waited for again.
      if (!read.settled && awaited !== null) store.set(AWAITED_TASK_CALL_KEY, null);
      return read.items;
    }),
    evidence_producers: producersVerifier,
    scope_check: scopeVerifier,
    // A producer the gate ran just now is an execution after the last mutation.
    mutation_nudge: mutationNudgeVerifier(() => ({
      track: policy.producers.length > 0 ? { ...work.track, last_execution_index: work.tool_calls_made } : work.track,
      hasExecutionTool: true,
      store,
    })),
  };
  // A sandboxed session runs every hook command inside its sandbox: they execute the agent's code.
  const wrap = sandboxWrap(policy);
  if (policy.turn.goal) parts.shell_stop_hooks = goalGateVerifier({ globalHooks: policy.stop_hooks, objective: policy.turn.goal }, { cwd, wrap });
  else if (policy.stop_hooks.length > 0) parts.shell_stop_hooks = shellStopHooksVerifier(policy.stop_hooks, { cwd, wrap });
  if (policy.extension_hooks.length > 0) parts.extension_stop_hooks = extensionStopHooksVerifier(policy.extension_hooks, store, { wrap });
  return buildVerifierChain<StopContext & StopHookContext>({ enabled: policy.turn.enabled, ...(policy.turn.order ? { order: policy.turn.order } : {}) }, parts);
}

/**
 * What the session's `verifiers.order` leaves out or adds, in words, for `session start` and
 * `run` to show once (a verifier left out of the order is otherwise silently not run).
 */
export function stopChainNotes(policy: Policy): string[] {
  if (!policy.turn.enabled || policy.turn.order === null) return [];
  const built = buildStopChain(policy, { lastMessage: null, transcriptPath: null }, emptyTurnState());
  return built.ok ? built.value.notes.filter((n) => !n.includes('not available here')) : [];
}

/** Runs the in-session chain at a Stop, in the policy's order, with its kill switch. */
export async function runInSessionChain(policy: Policy, dir: string, input: StopInput, signal: AbortSignal = new AbortController().signal): Promise<StopChainRun | { tampered: string }> {
  // A host that lives on (the warm supervisor) keeps the verified baseline and its scope cache between Stops.
  const baseline = loadSessionBaseline(policy, dir, readVerifiedJsonHeld);
  if (!baseline.ok) return { tampered: baseline.reason };
  const state = readTurnState(dir);
  const work: TurnState = { ...state, kv: { ...state.kv } };
  const built = buildStopChain(policy, input, work);
  if (!built.ok) throw new Error(built.reason);
  const ctx = contextOf(policy, baseline.value, dir, state, input, scopeExclusions(policy, true), true);
  if (baseline.value !== null && typeof policy.baseline_sha256 === 'string') ctx.scopeCache = sessionScopeCache(dir, policy.baseline_sha256, policy.allow, ctx.exclude);
  const result = await built.value.chain.run(ctx, signal);
  return { result, state: work, notes: built.value.notes };
}

/**
 * The authoritative end-of-session check: the task's required checks and the scope check,
 * whatever happened in the session and whatever the in-session chain's settings.
 */
export function runEndOfSessionChain(policy: Policy, baseline: Baseline | null, dir: string, exclude: string[]): Promise<ChainResult> {
  const ctx = contextOf(policy, baseline, dir, readTurnState(dir), { lastMessage: null, transcriptPath: null }, exclude, false);
  return new VerifierChain<StopChainContext>([producersVerifier, scopeVerifier]).run(ctx, new AbortController().signal);
}
