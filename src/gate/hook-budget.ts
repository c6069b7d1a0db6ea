// How long each rendered hook may take, from the session policy: the agent must never time a
// hook out first, because a hook the agent times out does not block.
import type { Policy } from '../core/policy.js';
import { SCOPE_BUDGET_S } from '../runtime/stop-verifiers.js';

/** Added to the producers' own timeouts so the agent never times the Stop hook out first. */
const STOP_TIMEOUT_MARGIN_S = 60;
/** Seconds past the approval TTL before the agent may time out a waiting PreToolUse hook. */
const APPROVAL_TIMEOUT_MARGIN_S = 60;
/** PreToolUse without approvals is a few path checks; a minute is far beyond any real run and still bounded. */
const DEFAULT_PRE_TOOL_TIMEOUT_S = 60;

/** Seconds the PreToolUse and Stop hooks of a session may take. */
export function hookBudgets(policy: Policy): { preToolS: number; stopS: number } {
  const timeouts = policy.producers.map((p) => p.timeout_s);
  const producersS = policy.sequential ? timeouts.reduce((a, b) => a + b, 0) : Math.max(0, ...timeouts);
  // Stop-hook stages run one after another; hooks within a stage in parallel.
  const shell = Math.max(0, ...policy.stop_hooks.map((h) => h.timeout_s), policy.turn.goal?.timeout_s ?? 0);
  const extension = Math.max(0, ...policy.extension_hooks.map((h) => h.timeout_s));
  return {
    // The hook may wait for a person: the agent must never time it out first.
    preToolS: policy.approvals.interactive ? policy.approvals.timeout_s + APPROVAL_TIMEOUT_MARGIN_S : DEFAULT_PRE_TOOL_TIMEOUT_S,
    // The scope check has its own budget; past it, the stop is refused, never left to time out.
    stopS: producersS + shell + extension + (policy.allow.length > 0 ? SCOPE_BUDGET_S : 0) + STOP_TIMEOUT_MARGIN_S,
  };
}
