// The PreToolUse decision: the write gate for write tools, and for every tool the
// tool-loop watchdog and hard caps, whose per-session memory lives in the turn state.
import type { PostToolEvent, PreToolEvent } from '../core/event.js';
import type { Policy } from '../core/policy.js';
import { toolCallRecord, pushRecent, type RobustnessProfile } from '../core/turn/context.js';
import { observeCall } from '../core/turn/mutation-nudge.js';
import { AWAITED_TASK_CALL_KEY, isTaskTool } from '../core/turn/task-tools.js';
import { checkFailureCount, checkMaxToolCalls, checkToolRun, extendToolRun } from '../core/turn/tool-loop.js';
import { allow, block, type Verdict } from '../core/verdict.js';
import { gatedShellWrites, toolCallVerdict, worstOutcome } from '../core/gate-rules.js';
import { fail } from '../core/result.js';
import { compileWriteScope, decideWrite, isInside, relativeInside, type ResolvedTarget } from '../core/write-gate.js';
import type { ShellAnalysis } from '../core/shell/index.js';
import { resolveWriteTarget } from '../runtime/resolve-path.js';
import { updateTurnState } from '../runtime/turn-state.js';
import { loadSessionBaseline } from '../runtime/session-files.js';
import { expandPlainGlob } from '../runtime/glob-targets.js';

/** The thresholds of a policy as the core's robustness profile. */
export function profileOf(policy: Policy): RobustnessProfile {
  const t = policy.turn;
  return { repeat_threshold: t.repeat_threshold, halt_threshold: t.halt_threshold, max_tool_calls: t.max_tool_calls, failure_threshold: t.failure_threshold };
}

/**
 * Tells whether a path already differs from the session's baseline: the way back may then write
 * it (outside the allowlist, or a changed git control file), since the Stop check judges the end.
 */
type DiffersFromBaseline = (abs: string) => boolean;

/**
 * The shell analysis of a Bash-like call (null for other tools). The analyser is loaded only for
 * a shell call: it is most of the hook's code, and a Write or Read never needs it.
 */
async function analyzeCall(policy: Policy, event: PreToolEvent, differs: DiffersFromBaseline | null = null): Promise<ShellAnalysis | null> {
  if (event.toolKind !== 'shell') return null;
  const input = event.input as { command?: unknown } | null;
  if (typeof input?.command !== 'string') return null;
  const { analyzeShell } = await import('../core/shell/index.js');
  return analyzeShell(input.command, {
    cwd: event.cwd,
    protectedPaths: policy.protect,
    // The home the protected paths were computed with at start (older policies: unknown, so `~` can be anything).
    home: policy.home ?? null,
    confine: policy.allow.length > 0 ? policy.worktree : null,
    ...(differs ? { restorable: (abs: string) => policy.restorable.some((r) => isInside(r, abs)) && differs(abs) } : {}),
  });
}

/**
 * The write gate for one tool call: a write tool's targets, or the literal write targets the
 * shell analysis found in a command (an early warning; the scope check at Stop is the net).
 * A restore, or a write to a path that already differs from the baseline, is the way back.
 */
function decideWriteCall(policy: Policy, event: PreToolEvent, shell: ShellAnalysis | null, differs: DiffersFromBaseline | null = null): Verdict {
  let targets: { path: string; restore: boolean }[] = event.targets.map((path) => ({ path, restore: false }));
  if (event.toolKind === 'shell') {
    if (!shell && event.targets.length === 0 && event.unreadable === undefined) return allow('not_a_write');
    // Only literal targets can be checked; one that can expand anywhere is the classifier's to refuse.
    // An adapter may add writes it knows a command makes (Codex's `apply_patch <<'EOF'`).
    const found = gatedShellWrites(shell?.writeTargets ?? []).flatMap((t) => {
      if (t.literal) return [{ path: t.path, restore: t.restore === true }];
      // A plain glob names the files it matches: each must pass like a literal path.
      return (expandPlainGlob(t.path, event.cwd) ?? []).map((path) => ({ path, restore: t.restore === true }));
    });
    targets = [...found, ...targets];
  } else if (event.toolKind !== 'write') {
    return allow('not_a_write');
  }
  const resolved: ResolvedTarget[] = targets.map((t) => {
    const real = resolveWriteTarget(t.path, event.cwd);
    const wayBack = t.restore || (differs !== null && real.ok && differs(real.value));
    return { target: t.path, real, ...(wayBack ? { wayBack } : {}) };
  });
  // Targets that cannot be read are refused like a path that cannot be resolved.
  if (event.unreadable !== undefined) resolved.unshift({ target: `${event.tool} input`, real: fail(event.unreadable) });
  return decideWrite(compileWriteScope(policy), event.tool, resolved);
}

/** Refusals the way back may lift: a path outside the allowlist, or a protected git control file. */
function mayBeWayBack(policy: Policy, write: Verdict, shell: ShellAnalysis | null): boolean {
  if (write.decision === 'block' && (write.rule === 'write.not_allowed' || write.rule === 'write.protected')) return true;
  return shell?.class === 'deny' && policy.restorable.length > 0;
}

/**
 * Loads what the way back needs, only on a refusal that it might lift: the verified baseline and
 * the comparison (the scope code stays out of the allow path). Null when there is no baseline.
 */
async function loadDiffers(policy: Policy, sessionDir: string): Promise<DiffersFromBaseline | null> {
  const baseline = loadSessionBaseline(policy, sessionDir);
  if (!baseline.ok || baseline.value === null) return null;
  // The probe alone, not the Stop chain that re-exports it: a refusal loads no child_process, producers or git.
  const { differsFromBaseline } = await import('../runtime/scope-probe.js');
  const seen = new Map<string, boolean>();
  const base = baseline.value;
  return (abs) => {
    let d = seen.get(abs);
    if (d === undefined) seen.set(abs, (d = differsFromBaseline(policy.worktree, base, abs)));
    return d;
  };
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
function callFlags(event: PreToolEvent, shell: ShellAnalysis | null): { mutation?: boolean; execution?: boolean } {
  if (event.toolKind !== 'shell' || !shell) return {};
  const mutation = shell.writeTargets.length > 0;
  const execution = !shell.commands.every((c) => PURE_WRITE_COMMANDS.has(c.argv[0] ?? ''));
  return { mutation, execution };
}

/**
 * A command Gatehouse could not read whole that names a path, with nobody to ask: refused. (One
 * that could write is refused by the classifier; with approvals on, a person sees it instead.)
 */
function blindPathCommand(policy: Policy, shell: ShellAnalysis | null): shell is ShellAnalysis {
  return shell?.unread?.touchesPath === true && shell.class === 'ask' && !policy.approvals.interactive;
}

function unreadReason(shell: ShellAnalysis): string {
  return `Gatehouse refused this command: it could not read all of it (${shell.reason.replace(/^Gatehouse[^:]*: /, '')}), and part of it names a path, so it cannot tell what it touches and no person is configured to review it. Run it as simpler commands, one per line, that Gatehouse can read (no deep nesting, no unbalanced quotes).`;
}

/** Whether the approval step can change the outcome: a profile, interactive review, or a classifier deny. */
function approvalsInForce(policy: Policy, shell: ShellAnalysis | null): boolean {
  return policy.permissions.profile !== null || policy.approvals.interactive || shell?.class === 'deny';
}

/** Decides one tool call end to end: write gate, watchdog, then permission profile, classifier and approvals. */
export async function decideToolUse(policy: Policy, event: PreToolEvent, sessionDir: string, signal?: AbortSignal): Promise<Verdict> {
  let shell = await analyzeCall(policy, event);
  let write = decideWriteCall(policy, event, shell);
  if (mayBeWayBack(policy, write, shell)) {
    const differs = await loadDiffers(policy, sessionDir);
    if (differs !== null) {
      shell = await analyzeCall(policy, event, differs);
      write = decideWriteCall(policy, event, shell, differs);
    }
  }
  const gated = decidePreTool(policy, event, sessionDir, shell, write);
  if (gated.decision === 'allow' && blindPathCommand(policy, shell)) return block('shell.unread', unreadReason(shell));
  if (gated.decision !== 'allow' || !approvalsInForce(policy, shell)) return gated;
  // The queue, profiles and recorder load only when this policy can need them.
  const { approvalStep } = await import('./approval-step.js');
  return approvalStep(policy, event, { paths: relativeTargets(policy, event, shell), ...(shell ? { shell } : {}) }, signal);
}

/**
 * Decides one tool call. Order: a watchdog halt ends the run; then the write gate's refusal
 * (the most specific reason); then a watchdog block; otherwise allow. Every attempt is
 * recorded, refused ones included, so a loop keeps counting until it halts.
 */
function decidePreTool(policy: Policy, event: PreToolEvent, sessionDir: string, shell: ShellAnalysis | null = null, write = decideWriteCall(policy, event, shell)): Verdict {
  if (!policy.turn.enabled || !policy.turn.watch_all_tools) return write;
  const profile = profileOf(policy);
  return updateTurnState(sessionDir, (s) => {
    const rec = toolCallRecord(event.tool, event.input, event.toolKind, callFlags(event, shell));
    const made = s.tool_calls_made + 1;
    const run = extendToolRun(s.run, rec);
    const watchdog = worstOutcome([checkMaxToolCalls(made, profile), checkToolRun(run, profile), checkFailureCount(s.failures, profile)]);
    const verdict = toolCallVerdict(write, watchdog);
    const track = verdict.decision === 'allow' ? observeCall(s.track, rec, made - 1) : s.track;
    // The Stop waits for this call's result to reach the transcript before it reads the task list.
    const kv = verdict.decision === 'allow' && event.callId !== undefined && isTaskTool(event.tool) ? { ...s.kv, [AWAITED_TASK_CALL_KEY]: event.callId } : s.kv;
    return { state: { ...s, tool_calls_made: made, run, recent: pushRecent(s.recent, rec), track, kv }, result: verdict };
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
