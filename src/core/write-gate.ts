// The write gate: given the real paths a tool call would write, decide allow or block.
// Pure: path resolution (symlinks, the file system) happens before, in runtime/.
import { compileGlob, matchesAny, type CompiledGlob } from './glob.js';
import { isInside, relativeInside } from './path-inside.js';
import { isPassThrough, type Policy } from './policy.js';
import type { Result } from './result.js';
import { allow, block, type Verdict } from './verdict.js';

/** Kept here too so older imports still work; new code imports them from path-inside.ts. */
export { isInside, relativeInside };

/** The policy fields the write gate reads, with its globs compiled once. */
export interface WriteScope {
  worktree: string;
  allow: CompiledGlob[];
  allowSources: string[];
  protect: string[];
  /** Protected paths the way back may still write (git control files inside the worktree). */
  restorable: string[];
  passThrough: boolean;
}

/** Compiles the write-gate view of a policy (do this once per process). */
export function compileWriteScope(policy: Pick<Policy, 'worktree' | 'allow' | 'protect' | 'producers'> & { restorable?: string[] }): WriteScope {
  return {
    worktree: policy.worktree,
    allow: policy.allow.map(compileGlob),
    allowSources: policy.allow,
    protect: policy.protect,
    restorable: policy.restorable ?? [],
    passThrough: isPassThrough(policy),
  };
}

/** One target the tool call names, with its resolution. */
export interface ResolvedTarget {
  target: string;
  real: Result<string>;
  /**
   * The way back: the write restores a file (`git checkout -- p`) or rewrites one that already
   * differs from the session's baseline. The allowlist does not apply (the Stop check judges the
   * final content), but the worktree and every protected path but the restorable ones still do.
   */
  wayBack?: boolean;
}

const NEXT_STEP =
  'Do not retry it or reach the same file another way (shell redirection, copy, move, link): make the change inside the allowed paths instead, or, if the task truly needs this file, finish without it and say so in your final message so the operator can widen the allowlist.';

/**
 * Decides a write. Every target must resolve and avoid the protected paths (in every session,
 * even one that enforces nothing else); with an allowlist it must also stay inside the worktree
 * and match an allow pattern, unless it is the way back (see {@link ResolvedTarget.wayBack}).
 */
export function decideWrite(scope: WriteScope, tool: string, targets: readonly ResolvedTarget[]): Verdict {
  if (targets.length === 0) return allow(scope.passThrough ? 'passthrough' : 'write.no_target');
  let wayBack = false;
  for (const t of targets) {
    const shown = JSON.stringify(t.target);
    if (!t.real.ok) {
      return block(
        'write.unresolvable',
        `Gatehouse refused this ${tool}: ${shown} cannot be checked (${t.real.reason}). Use a plain path inside the task's allowed paths (${list(scope)}). ${NEXT_STEP}`,
      );
    }
    const real = t.real.value;
    const hit = scope.protect.find((p) => isInside(p, real));
    const restoring = t.wayBack === true && scope.restorable.some((r) => isInside(r, real));
    if (hit !== undefined && !restoring) {
      return block(
        'write.protected',
        `Gatehouse refused this ${tool}: ${shown} is one of the supervisor's own files (${hit}), which an agent may never change while a session is active. ${NEXT_STEP}`,
      );
    }
    // Writing back a changed control file or user git config: the scope check compares it, wherever it lives.
    if (restoring) {
      wayBack = true;
      continue;
    }
    // With no allowlist the task constrains only completion, not where files go.
    if (scope.allow.length === 0) continue;
    if (!isInside(scope.worktree, real) || real === scope.worktree) {
      return block('write.outside_worktree', `Gatehouse refused this ${tool}: ${shown} resolves to ${real}, outside the task's worktree ${scope.worktree}. ${NEXT_STEP}`);
    }
    const rel = relativeInside(scope.worktree, real);
    if (t.wayBack) wayBack = true;
    else if (!matchesAny(rel, scope.allow)) {
      return block('write.not_allowed', `Gatehouse refused this ${tool}: ${rel} is outside this task's allowed paths (${list(scope)}). ${NEXT_STEP}`);
    }
  }
  if (scope.passThrough) return allow('passthrough');
  if (scope.allow.length === 0) return allow('write.no_allowlist');
  return allow(wayBack ? 'write.way_back' : 'write.allowed');
}

function list(scope: WriteScope): string {
  return scope.allowSources.length > 0 ? scope.allowSources.join(', ') : 'none';
}
