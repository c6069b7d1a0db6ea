// The session's policy and baseline as `session start` made them, accepted only when they hash to
// the digests its start record holds: what the end check, `session show` and the doctor trust.
import { checkPolicy, type Policy } from '../core/policy.js';
import { fail, ok, type Result } from '../core/result.js';
import { sentence } from '../core/sentence.js';
import type { RenderedFile } from '../adapters/adapter.js';
import type { Baseline } from '../runtime/scope-baseline.js';
import { readVerifiedJson } from '../runtime/session-files.js';
import type { SessionStore } from '../runtime/session-store.js';
import { startDigests, type StartDigests } from '../runtime/session-trust.js';

/** The policy, baseline and render record as `session start` made them: never files rewritten since. */
export interface TrustedCopies {
  policy: Policy;
  baseline: Baseline | null;
  rendered: RenderedFile[];
}

function untrusted(id: string): string {
  return `Treat the work of session ${id} as unverified.`;
}

/** The start digests, or why there are none. */
function digestsOf(store: SessionStore): Result<StartDigests> {
  const d = startDigests(store.projectState, store.id);
  if (d === null)
    return fail(
      `the audit log has no start record with file digests for session ${store.id} (started by an older Gatehouse, or the log was cut), so its files cannot be trusted. ${untrusted(store.id)}`,
    );
  return ok(d);
}

/**
 * The session's policy and baseline as they were at start: read from its folder and accepted only
 * if they hash to the digests its `session_started` audit event recorded.
 */
export function trustedCopies(store: SessionStore): Result<TrustedCopies> {
  const digests = digestsOf(store);
  if (!digests.ok) return digests;
  const { policy: policyDigest, baseline: baselineDigest } = digests.value;
  const what = `Gatehouse cannot trust session ${store.id}`;
  const policy = readVerifiedJson(store.path('policy'), policyDigest, 'policy.json', checkPolicy);
  if (!policy.ok) return fail(`${sentence(`${what}: ${policy.reason}`)} ${untrusted(store.id)}`);
  let baseline: Baseline | null = null;
  if (baselineDigest !== null) {
    const b = readVerifiedJson<Baseline>(store.path('baseline'), baselineDigest, 'baseline.json');
    if (!b.ok) return fail(`${sentence(`${what}: ${b.reason}`)} ${untrusted(store.id)}`);
    baseline = b.value;
  }
  // The check needs no render record; `session end` verifies it on its own (renderToUndo).
  return ok({ policy: policy.value, baseline, rendered: [] });
}
