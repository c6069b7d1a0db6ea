// Assembles the Stop-side verifier chain from config (kill switch, order) and the
// verifiers on hand; runtime-backed ones (shell hooks, producers, scope) come in as parts.
import { fail, ok, type Result } from '../result.js';
import { VerifierChain, type TurnVerifier } from '../verifier-chain.js';
import type { TurnVerifyContext } from './context.js';

/**
 * The built-in stages, in their default order: the operator's own hooks first (they know
 * the project), then the cheap in-session checks, the evidence producers (slow), the
 * scope check, and last the one-off nudge, so it is spent only on an otherwise clean stop.
 */
export const DEFAULT_VERIFIER_ORDER = ['shell_stop_hooks', 'extension_stop_hooks', 'tool_loop', 'execution_list', 'evidence_producers', 'scope_check', 'mutation_nudge'] as const;

/** The name of a built-in stage. */
export type VerifierName = (typeof DEFAULT_VERIFIER_ORDER)[number];

const KNOWN: ReadonlySet<string> = new Set(DEFAULT_VERIFIER_ORDER);

/** The `verifiers` section of the policy, as far as the chain's shape goes. */
export interface ChainConfig {
  /** The kill switch: false runs no verifier at all. */
  enabled: boolean;
  /** Stage names in run order; defaults to `DEFAULT_VERIFIER_ORDER`. */
  order?: readonly string[];
}

/** The verifiers on hand, by stage name. */
export type VerifierParts<C> = Partial<Record<VerifierName, TurnVerifier<C>>>;

/** The assembled chain and notes for the operator (stages skipped, parts unused). */
export interface BuiltChain<C> {
  chain: VerifierChain<C>;
  /** The stage names that will run, in order. */
  names: string[];
  notes: string[];
}

/**
 * Builds the chain. An unknown or repeated name in `order` is an error value; a known
 * name with no verifier supplied is skipped with a note.
 *
 * @example
 * // A plain TypeScript agent loop, checking between "think" and "act":
 * const store = memoryStateStore();
 * let recent: ToolCallRecord[] = [];
 * let track = EMPTY_MUTATION_TRACK;
 * let calls = 0;
 * const built = buildVerifierChain({ enabled: true }, {
 *   tool_loop: toolLoopVerifier,
 *   execution_list: executionListVerifier(() => parseScratchpad(scratchpad).items),
 *   mutation_nudge: mutationNudgeVerifier(() => ({ track, hasExecutionTool: true, store })),
 * });
 * if (!built.ok) throw new Error(built.reason);
 * const { profile } = clampProfile({ repeat_threshold: 4 });
 * for (let iterations = 1; ; iterations++) {
 *   const reply = await model.think(messages);                       // think
 *   const ctx = (stop_reason: 'end_turn' | null): TurnVerifyContext => ({
 *     session_id: 's1', iterations, tool_calls_made: calls, final_text: reply.text,
 *     recent_tool_calls: recent, stop_reason, profile,
 *   });
 *   if (reply.toolCalls.length === 0) {
 *     const verdict = await built.value.chain.run(ctx('end_turn'), signal);
 *     if (verdict.outcome === 'continue') break;                   // the turn ends
 *     if (verdict.outcome === 'halt') throw new Error(verdict.reason ?? 'halted');
 *     messages.push({ role: 'user', content: verdict.reason });   // block: keep working
 *     continue;
 *   }
 *   for (const call of reply.toolCalls) {
 *     const rec = toolCallRecord(call.name, call.input, kindOf(call.name));
 *     recent = pushRecent(recent, rec);                             // record every attempt
 *     calls++;
 *     const verdict = await built.value.chain.run(ctx(null), signal);
 *     if (verdict.outcome === 'halt') throw new Error(verdict.reason ?? 'halted');
 *     if (verdict.outcome === 'block') { messages.push(toolError(call, verdict.reason)); continue; }
 *     track = observeCall(track, rec, calls - 1);
 *     messages.push(await act(call));                               // act
 *   }
 * }
 */
export function buildVerifierChain<Extra = object>(config: ChainConfig, parts: VerifierParts<TurnVerifyContext & Extra>): Result<BuiltChain<TurnVerifyContext & Extra>> {
  const order = config.order ?? DEFAULT_VERIFIER_ORDER;
  const seen = new Set<string>();
  const verifiers: TurnVerifier<TurnVerifyContext & Extra>[] = [];
  const names: string[] = [];
  const notes: string[] = [];
  for (const name of order) {
    if (!KNOWN.has(name)) {
      return fail(`Unknown verifier "${name}" in verifiers.order; the known verifiers are: ${DEFAULT_VERIFIER_ORDER.join(', ')}.`);
    }
    if (seen.has(name)) return fail(`Verifier "${name}" appears twice in verifiers.order; list each verifier once.`);
    seen.add(name);
    const v = parts[name as VerifierName];
    if (!v) {
      notes.push(`verifier "${name}" is in the order but not available here; skipped`);
      continue;
    }
    verifiers.push(v);
    names.push(name);
  }
  for (const name of Object.keys(parts)) {
    const v = parts[name as VerifierName];
    if (!v || seen.has(name)) continue;
    // The completion gate (required checks, scope) cannot be switched off by leaving it out of
    // the order: it runs after the listed verifiers, and the note says so.
    if (v.completion === true) {
      verifiers.push(v);
      names.push(name);
      notes.push(`verifier "${name}" is not in verifiers.order; it runs last anyway, because it is part of the completion gate`);
    } else notes.push(`verifier "${name}" is available but not in verifiers.order; not run`);
  }
  return ok({ chain: new VerifierChain(verifiers, config.enabled), names, notes });
}
