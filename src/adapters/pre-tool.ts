// The PreToolUse decision: the write gate for write tools, and for every tool the
// tool-loop watchdog and hard caps, whose per-session memory lives in the turn state.
import type { PostToolEvent, PreToolEvent } from '../core/event.js';
import type { Policy } from '../core/policy.js';
import { toolCallRecord, pushRecent, type RobustnessProfile } from '../core/turn/context.js';
import { observeCall } from '../core/turn/mutation-nudge.js';
import { checkFailureCount, checkMaxToolCalls, checkToolRun, extendToolRun } from '../core/turn/tool-loop.js';
import type { VerifierOutcome } from '../core/verifier-chain.js';
import { allow, block, type Verdict } from '../core/verdict.js';
import { compileWriteScope, decideWrite } from '../core/write-gate.js';
import { resolveWriteTarget } from '../runtime/resolve-path.js';
import { updateTurnState } from '../runtime/turn-state.js';

/** The thresholds of a policy as the core's robustness profile. */
export function profileOf(policy: Policy): RobustnessProfile {
  const t = policy.turn;
  return { repeat_threshold: t.repeat_threshold, halt_threshold: t.halt_threshold, max_tool_calls: t.max_tool_calls, failure_threshold: t.failure_threshold };
}

/** The write gate alone, for one tool call. */
export function decideWriteCall(policy: Policy, event: PreToolEvent): Verdict {
  if (event.toolKind !== 'write') return allow('not_a_write');
  return decideWrite(
    compileWriteScope(policy),
    event.tool,
    event.targets.map((target) => ({ target, real: resolveWriteTarget(target, event.cwd) })),
  );
}

function worst(outcomes: VerifierOutcome[]): VerifierOutcome {
  return outcomes.find((o) => o.kind === 'halt') ?? outcomes.find((o) => o.kind === 'block') ?? { kind: 'continue' };
}

/**
 * Decides one tool call. Order: a watchdog halt ends the run; then the write gate's refusal
 * (the most specific reason); then a watchdog block; otherwise allow. Every attempt is
 * recorded, refused ones included, so a loop keeps counting until it halts.
 */
export function decidePreTool(policy: Policy, event: PreToolEvent, sessionDir: string): Verdict {
  const write = decideWriteCall(policy, event);
  if (!policy.turn.enabled || !policy.turn.watch_all_tools) return write;
  const profile = profileOf(policy);
  return updateTurnState(sessionDir, (s) => {
    const rec = toolCallRecord(event.tool, event.input, event.toolKind);
    const made = s.tool_calls_made + 1;
    const run = extendToolRun(s.run, rec);
    const watchdog = worst([checkMaxToolCalls(made, profile), checkToolRun(run, profile), checkFailureCount(s.failures, profile)]);
    let verdict: Verdict;
    if (watchdog.kind === 'halt') verdict = { decision: 'halt', rule: 'tool_loop', reason: watchdog.reason };
    else if (write.decision !== 'allow') verdict = write;
    else if (watchdog.kind === 'block') verdict = block('tool_loop', watchdog.reason);
    else verdict = write;
    const track = verdict.decision === 'allow' ? observeCall(s.track, rec, made - 1) : s.track;
    return { state: { ...s, tool_calls_made: made, run, recent: pushRecent(s.recent, rec), track }, result: verdict };
  });
}

/** Records a finished tool call: consecutive failures feed the failure watchdog. */
export function recordPostTool(policy: Policy, event: PostToolEvent, sessionDir: string): Verdict {
  if (!policy.turn.enabled) return allow('post_tool.recorded');
  updateTurnState(sessionDir, (s) => {
    const recent = s.recent.slice();
    const last = recent.at(-1);
    if (last && last.name === event.tool) recent[recent.length - 1] = { ...last, failed: event.failed };
    return { state: { ...s, failures: event.failed ? s.failures + 1 : 0, recent }, result: null };
  });
  return allow('post_tool.recorded');
}
