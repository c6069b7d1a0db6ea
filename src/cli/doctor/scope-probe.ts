// doctor's scope probe: after the canary run, the end-of-session scope check must find only the
// canary's own work. Files the agent program writes for itself outside the allowlist would fail
// every real session of that agent, so they make the gate BROKEN.
import { scopeExclusions } from '../../core/policy.js';
import { trustedCopies } from '../../gate/session-trusted.js';
import type { CanaryFiles } from '../../runtime/doctor/canary.js';
import type { GateResult } from '../../runtime/doctor/evidence.js';
import { allowMatcher, changedSince } from '../../runtime/scope-baseline.js';
import type { SessionStore } from '../../runtime/session-store.js';

/** Paths named in the evidence before it summarises. */
const LISTED = 3;

/** Runs the scope check of the canary session `store` as its end-of-session check would, hooks still in place. */
export async function probeScope(store: SessionStore, files: CanaryFiles): Promise<GateResult> {
  const broken = (evidence: string): GateResult => ({ state: 'BROKEN', claimed: 'blocking', evidence });
  const copies = trustedCopies(store);
  if (!copies.ok) return broken(`the session's records could not be read: ${copies.reason}`);
  const { policy, baseline } = copies.value;
  if (baseline === null) return broken('the canary session recorded no baseline');
  const changes = await changedSince(policy.worktree, baseline, { exclude: scopeExclusions(policy, true), allow: policy.allow });
  const allowed = allowMatcher(policy.allow);
  const outside = changes.filter((c) => !allowed(c.path)).map((c) => c.path);
  const stray = outside.filter((p) => p !== files.outside.rel);
  if (stray.length > 0) {
    const named = stray.slice(0, LISTED).join(', ') + (stray.length > LISTED ? ` and ${stray.length - LISTED} more` : '');
    return broken(`the agent itself changed ${stray.length === 1 ? 'a file' : `${stray.length} files`} outside the allowlist (${named}): every session of it would fail its end-of-session check`);
  }
  const inside = changes.filter((c) => allowed(c.path)).map((c) => c.path);
  if (outside.length > 0) return { state: 'blocking', claimed: 'blocking', evidence: `the end-of-session check caught ${files.outside.rel}, which the write gate let through` };
  return { state: 'blocking', claimed: 'blocking', evidence: `the end-of-session check found only the canary's own work inside the allowlist (${inside.join(', ') || 'nothing'})` };
}
