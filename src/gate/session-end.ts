// Ending a gated session and its authoritative check. Both act only on what the session's
// start recorded: the in-memory copies `run` kept, or files matching the audit log's digests.
import { resolve } from 'node:path';
import { scopeExclusions } from '../core/policy.js';
import { fail, ok, type Result } from '../core/result.js';
import type { ChainResult } from '../core/verifier-chain.js';
import { humanSummary, verdictPassed, verdictWord } from '../core/verdict-report.js';
import { osUserActor, recordCompletion, recordEvent, writeCheckpoint } from '../runtime/recorder.js';
import { readVerifiedJson } from '../runtime/session-files.js';
import type { SessionStore } from '../runtime/session-store.js';
import { startDigests } from '../runtime/session-trust.js';
import { trustedCopies, type TrustedCopies } from './session-trusted.js';
import { RenderedFiles, type RenderedFile } from '../adapters/adapter.js';
import { checkShape } from '../core/shape.js';
import { adapterFor } from '../adapters/registry.js';
import { runEndOfSessionChain } from './stop-chain.js';
import { isoTime } from '../core/iso-time.js';

/** What the caller knows for itself when it checks (`run` does; `session check` reads meta.json). */
export interface CheckContext {
  /** The session's hooks are still in the agent's settings, so those files differ from the baseline by design. */
  hooksRendered: boolean;
}

/** What to do when Gatehouse will not remove a session's hooks itself. */
const BY_HAND = (id: string): string => `Remove the hook entries whose command contains \`--session ${id}\` from the agent's settings by hand.`;

/**
 * What `session end` may act on without in-memory copies: the render record and the agent, if the
 * render record matches its digest in the audit log. Only these are needed to remove the hooks,
 * so a session whose policy was tampered with can still be ended. A session started by an older
 * Gatehouse recorded no digests: its files are used as they are, as that version did.
 */
function renderToUndo(store: SessionStore): Result<{ agent: string; rendered: RenderedFile[] }> {
  const d = startDigests(store.projectState, store.id);
  if (d === null || d.render === null) {
    const policy = store.policy();
    const rendered = store.readJson<unknown>('render');
    if (!policy.ok) return fail(policy.reason);
    // An unreadable record means nothing to undo, as that version did; one that is not a list of files is refused.
    const files = rendered.ok ? checkShape(RenderedFiles, rendered.value) : ok([]);
    if (!files.ok) return fail(`Gatehouse cannot trust session ${store.id}: render.json is not a render record (${files.reason}), so it will not edit any settings file from it. ${BY_HAND(store.id)}`);
    return confined(store.id, policy.value.agent, policy.value.worktree, files.value);
  }
  const r = readVerifiedJson(store.path('render'), d.render, 'render.json', (v) => checkShape(RenderedFiles, v));
  if (!r.ok) {
    return fail(`Gatehouse cannot trust session ${store.id}: ${r.reason}, so it will not edit any settings file from it. ${BY_HAND(store.id)}`);
  }
  return confined(store.id, d.agent, d.worktree, r.value);
}

/**
 * The render record, if each hook file it names is one the agent's adapter renders for the
 * session's worktree: a record read from disk never makes `session end` write anywhere else.
 * Trust-step records (tagged by `kind`) are checked by their own step when undone.
 */
function confined(id: string, agent: string, worktree: string, rendered: RenderedFile[]): Result<{ agent: string; rendered: RenderedFile[] }> {
  const targets = new Set((adapterFor(agent)?.renderTargets(worktree) ?? []).map((f) => resolve(f)));
  for (const f of rendered) {
    const record = (typeof f.record === 'object' && f.record !== null ? f.record : {}) as { kind?: unknown; file?: unknown };
    if (typeof record.kind === 'string') continue;
    const named = typeof f.file === 'string' ? resolve(f.file) : '';
    if (!targets.has(named) || (record.file !== undefined && (typeof record.file !== 'string' || resolve(record.file) !== named))) {
      return fail(
        `Gatehouse cannot trust session ${id}: its render record names ${JSON.stringify(String(f.file))}, which is not a file the ${agent} hooks are rendered to for ${worktree}, so it will not edit any file from it. ${BY_HAND(id)}`,
      );
    }
  }
  return ok({ agent, rendered });
}

/**
 * Removes exactly the hooks a session rendered and marks it ended. Idempotent. `trusted` are
 * the copies `run` kept in memory; without them the render record must match its digest.
 */
export function endSession(store: SessionStore, exitCode: number | null = null, trusted?: TrustedCopies): Result<{ removed: number; alreadyEnded: boolean }> {
  const meta = store.meta();
  if (!meta.ok) return fail(meta.reason);
  const undo = trusted ? ok({ agent: trusted.policy.agent, rendered: trusted.rendered }) : renderToUndo(store);
  if (!undo.ok) return undo;
  let removed = 0;
  if (undo.value.rendered.length > 0) {
    const adapter = adapterFor(undo.value.agent);
    if (adapter) {
      const r = adapter.unrender(undo.value.rendered);
      if (!r.ok) return fail(r.reason);
      removed = r.value.removed;
    }
  }
  const alreadyEnded = meta.value.status === 'ended';
  if (!alreadyEnded) {
    store.writeJson('meta', { ...meta.value, status: 'ended', ended_at: isoTime() });
    // Only where the log and the session are: from the store itself, never from a policy that may be forged.
    const ref = { state_dir: store.projectState, session_id: store.id };
    recordEvent(ref, 'session_ended', osUserActor(), { reason: 'session end', exit_code: exitCode });
    writeCheckpoint(ref);
  }
  return ok({ removed, alreadyEnded });
}

/**
 * The authoritative end-of-session check: the task's required checks and the scope check,
 * whatever happened in-session, judged by the trusted copies (see {@link endSession}).
 */
export async function checkSession(store: SessionStore, trusted?: TrustedCopies & CheckContext): Promise<Result<ChainResult>> {
  const copies = trusted ? ok(trusted) : trustedCopies(store);
  if (!copies.ok) return fail(copies.reason);
  const { policy, baseline } = copies.value;
  const meta = store.meta();
  if (!meta.ok) return fail(meta.reason);
  // While hooks are still rendered their settings file differs from the baseline by design.
  const exclude = scopeExclusions(policy, trusted ? trusted.hooksRendered : meta.value.status === 'active');
  const result = await runEndOfSessionChain(policy, baseline, store.dir, exclude);
  const evidenceId = recordCompletion(policy, 'end_of_session', result, { actor: 'system:session-check' });
  // The verdict is anchored by a signed checkpoint right away, whatever happens next.
  writeCheckpoint(policy);
  store.writeJson('meta', {
    ...meta.value,
    end_verdict: { passed: verdictPassed(result), verdict: verdictWord(result), summary: humanSummary(result), at: isoTime(), evidence_id: evidenceId },
  });
  return ok(result);
}

/**
 * Records that the session's command never ran (it could not be started, or the user interrupted
 * first): there is no work to judge, so no check runs, and the session does not read as passed.
 */
export function recordNeverRan(store: SessionStore, why: string): Result<void> {
  const meta = store.meta();
  if (!meta.ok) return fail(meta.reason);
  store.writeJson('meta', { ...meta.value, end_verdict: { passed: false, verdict: 'not_run', summary: `the command never ran: ${why}`, at: isoTime(), evidence_id: null } });
  return ok(undefined);
}
