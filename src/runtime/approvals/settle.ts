// An approval's one resolution and its `human_approval_decision` audit event, written as one
// step under the audit log's lock: whoever resolves (any surface, an expiry) records it, once.
import { existsSync } from 'node:fs';
import type { Principal } from '../../core/approvals/principal.js';
import type { AppendInput } from '../audit/record.js';
import type { AuditLog } from '../audit/log.js';
import { isSafeSessionId } from '../state-dir.js';
import { createExclusive, ensureDirs, readOrNull, recordFile, type ApprovalPaths } from './files.js';
import { parseResolution, type PendingApproval, type Resolution } from './record.js';
import { CORRUPT_RECORD_PRINCIPAL } from './system-principals.js';
import { ring } from './waiter.js';
import { isoTime } from '../../core/iso-time.js';

/**
 * How writing a resolution ended: this one was created (and recorded); another answer
 * already stands (a corrupt one reads as a denial); or nothing was written because the
 * audit log could not record it, so the request stays open.
 */
export type Settled = { kind: 'created'; resolution: Resolution } | { kind: 'exists'; winner: Resolution } | { kind: 'not_recorded'; reason: string };

/** The queue's denial of `p` at `now`, its time having run out, under `principal` (TTL expiry or the sweeper). */
export function expiryDenial(p: PendingApproval, principal: Principal, now: Date): Resolution {
  const ttlSeconds = Math.round((Date.parse(p.expires_at) - Date.parse(p.created_at)) / 1000);
  return { id: p.id, decision: 'reject', reason: `approval timed out after ${ttlSeconds} s`, principal, resolved_at: isoTime(now), expired: true };
}

/** The audit event of a resolution: the principal is the actor, whatever the surface. */
export function decisionEvent(pending: PendingApproval, r: Resolution): AppendInput<'human_approval_decision'> {
  return {
    type: 'human_approval_decision',
    actor: r.principal.id,
    // Requests filed by hooks carry their session; a label that is no session id is left out.
    session_id: isSafeSessionId(pending.session_id) ? pending.session_id : null,
    data: {
      approval_id: r.id,
      tool: pending.tool,
      decision: r.decision,
      decided_by: r.principal.id,
      auth: r.principal.auth,
      ...(r.reason ? { reason: r.reason } : {}),
    },
  };
}

/** The answer on file for `id`, or a denial standing for a file that fails its checks. */
function standingAnswer(paths: ApprovalPaths, id: string, at: string): Resolution {
  const text = readOrNull(recordFile(paths.resolved, id));
  const parsed = text === null ? null : parseResolution(text, id);
  if (parsed?.ok) return parsed.value;
  const why = parsed === null ? 'the resolution record vanished' : parsed.reason;
  return { id, decision: 'reject', reason: `${why}; denied to be safe`, principal: CORRUPT_RECORD_PRINCIPAL, resolved_at: at };
}

/**
 * Creates `r` as the resolution of `pending` unless an answer exists, appending its
 * decision event first, both under the audit lock that every writer of a resolution takes.
 * The event comes first so that no answer can ever take effect unrecorded: if the append
 * fails, nothing is created. Errors creating the file itself are thrown, as before.
 */
export function settle(paths: ApprovalPaths, audit: AuditLog, pending: PendingApproval, r: Resolution): Settled {
  ensureDirs(paths);
  const file = recordFile(paths.resolved, r.id);
  const exists = (): Settled => ({ kind: 'exists', winner: standingAnswer(paths, r.id, r.resolved_at) });
  // Losers of a race, and callers polling an answered request, need no lock.
  if (existsSync(file)) return exists();
  let createError: unknown = null;
  let outcome: Settled;
  try {
    outcome = audit.transact((append): Settled => {
      if (existsSync(file)) return exists();
      append(decisionEvent(pending, r));
      try {
        return createExclusive(file, `${JSON.stringify(r, null, 2)}\n`) ? { kind: 'created', resolution: r } : exists();
      } catch (err) {
        createError = err;
        return exists();
      }
    });
  } catch (err) {
    // The lock timed out, or the log refused the event (a broken chain): no answer was written.
    return { kind: 'not_recorded', reason: err instanceof Error ? err.message : String(err) };
  }
  if (createError !== null) throw createError;
  // Wakes the one wait this answer is for (the request names it); the others sleep on.
  if (outcome.kind === 'created' && pending.waiter !== undefined) ring(paths, pending.waiter);
  return outcome;
}
