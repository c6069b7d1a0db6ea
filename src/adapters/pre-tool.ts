// The PreToolUse decision: the write gate for write tools, and for every tool the
// tool-loop watchdog and hard caps, whose per-session memory lives in the turn state.
import type { PostToolEvent, PreToolEvent } from '../core/event.js';
import type { Policy } from '../core/policy.js';
import { toolCallRecord, pushRecent, type RobustnessProfile } from '../core/turn/context.js';
import { observeCall } from '../core/turn/mutation-nudge.js';
import { checkFailureCount, checkMaxToolCalls, checkToolRun, extendToolRun } from '../core/turn/tool-loop.js';
import type { VerifierOutcome } from '../core/verifier-chain.js';
import { allow, block, type Verdict } from '../core/verdict.js';
import { fail } from '../core/result.js';
import { compileWriteScope, decideWrite, isInside, relativeInside } from '../core/write-gate.js';
import { analyzeShell, type ShellAnalysis } from '../core/shell/index.js';
import { resolveWriteTarget } from '../runtime/resolve-path.js';
import { updateTurnState } from '../runtime/turn-state.js';

/** The thresholds of a policy as the core's robustness profile. */
export function profileOf(policy: Policy): RobustnessProfile {
  const t = policy.turn;
  return { repeat_threshold: t.repeat_threshold, halt_threshold: t.halt_threshold, max_tool_calls: t.max_tool_calls, failure_threshold: t.failure_threshold };
}

/** The shell analysis of a Bash-like call (null for other tools). */
export function analyzeCall(policy: Policy, event: PreToolEvent): ShellAnalysis | null {
  if (event.toolKind !== 'shell') return null;
  const input = event.input as { command?: unknown } | null;
  if (typeof input?.command !== 'string') return null;
  return analyzeShell(input.command, { cwd: event.cwd, protectedPaths: policy.protect });
}

/**
 * The write gate for one tool call: a write tool's targets, or the literal write targets the
 * shell analysis found in a command (an early warning; the scope check at Stop is the net).
 */
export function decideWriteCall(policy: Policy, event: PreToolEvent, shell: ShellAnalysis | null): Verdict {
  let targets = event.targets;
  if (event.toolKind === 'shell') {
    if (!shell && event.targets.length === 0 && event.unreadable === undefined) return allow('not_a_write');
    // Only literal targets can be checked; an expanded one makes the classifier ask instead.
    // Deletions are left to the scope check (which reports them): refusing them here would also
    // stop the agent from removing a file it wrongly created, the very fix the check asks for.
    // An adapter may add writes it knows a command makes (Codex's `apply_patch <<'EOF'`).
    targets = [...(shell?.writeTargets ?? []).filter((t) => t.literal && t.kind !== 'delete').map((t) => t.path), ...event.targets];
  } else if (event.toolKind !== 'write') {
    return allow('not_a_write');
  }
  const resolved = targets.map((target) => ({ target, real: resolveWriteTarget(target, event.cwd) }));
  // Targets that cannot be read are refused like a path that cannot be resolved.
  if (event.unreadable !== undefined) resolved.unshift({ target: `${event.tool} input`, real: fail(event.unreadable) });
  return decideWrite(compileWriteScope(policy), event.tool, resolved);
}

/** Worktree-relative real paths of the call's write targets, for permission profiles and rules. */
function relativeTargets(policy: Policy, event: PreToolEvent, shell: ShellAnalysis | null): string[] {
  const raw = event.toolKind === 'shell' ? [...(shell?.writeTargets.map((t) => t.path) ?? []), ...event.targets] : event.targets;
  return raw.map((t) => {
    const real = resolveWriteTarget(t, event.cwd);
    return real.ok && isInside(policy.worktree, real.value) ? relativeInside(policy.worktree, real.value) : t;
  });
}

/** Commands that only move or write data: a command made of these alone runs nothing that checks the work. */
const PURE_WRITE_COMMANDS = new Set(['echo', 'printf', 'cat', 'tee', 'touch', 'mkdir', 'cp', 'mv', 'ln', 'rm', 'sed', 'install', 'truncate', 'chmod', 'dd']);

/** Mutation/execution flags of a call for the mutation-evidence nudge: a shell write is a mutation. */
export function callFlags(event: PreToolEvent, shell: ShellAnalysis | null): { mutation?: boolean; execution?: boolean } {
  if (event.toolKind !== 'shell' || !shell) return {};
  const mutation = shell.writeTargets.length > 0;
  const execution = !shell.commands.every((c) => PURE_WRITE_COMMANDS.has(c.argv[0] ?? ''));
  return { mutation, execution };
}

/** Whether the approval step can change the outcome: a profile, interactive review, or a classifier deny. */
export function approvalsInForce(policy: Policy, shell: ShellAnalysis | null): boolean {
  return policy.permissions.profile !== null || policy.approvals.interactive || shell?.class === 'deny';
}

/** Decides one tool call end to end: write gate, watchdog, then permission profile, classifier and approvals. */
export async function decideToolUse(policy: Policy, event: PreToolEvent, sessionDir: string): Promise<Verdict> {
  const shell = analyzeCall(policy, event);
  const gated = decidePreTool(policy, event, sessionDir, shell);
  if (gated.decision !== 'allow' || !approvalsInForce(policy, shell)) return gated;
  // The queue, profiles and recorder load only when this policy can need them.
  const { approvalStep } = await import('./approval-step.js');
  return approvalStep(policy, event, { paths: relativeTargets(policy, event, shell), ...(shell ? { shell } : {}) });
}

function worst(outcomes: VerifierOutcome[]): VerifierOutcome {
  return outcomes.find((o) => o.kind === 'halt') ?? outcomes.find((o) => o.kind === 'block') ?? { kind: 'continue' };
}

/**
 * Decides one tool call. Order: a watchdog halt ends the run; then the write gate's refusal
 * (the most specific reason); then a watchdog block; otherwise allow. Every attempt is
 * recorded, refused ones included, so a loop keeps counting until it halts.
 */
export function decidePreTool(policy: Policy, event: PreToolEvent, sessionDir: string, shell: ShellAnalysis | null = null): Verdict {
  const write = decideWriteCall(policy, event, shell);
  if (!policy.turn.enabled || !policy.turn.watch_all_tools) return write;
  const profile = profileOf(policy);
  return updateTurnState(sessionDir, (s) => {
    const rec = toolCallRecord(event.tool, event.input, event.toolKind, callFlags(event, shell));
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
