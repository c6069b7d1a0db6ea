// What a waiting hook acts on: the answer on file, only when the audit log vouches for it,
// else a denial; and at the expiry, the queue's own denial, written and recorded once.
import { existsSync } from 'node:fs';
import type { AuditEvent } from '../audit/record.js';
import type { AuditLog } from '../audit/log.js';
import { readOrNull, recordFile, type ApprovalPaths } from './files.js';
import { parseResolution, type PendingApproval, type Resolution } from './record.js';
import { decisionEvent, expiryDenial, settle, type Settled } from './settle.js';
import { CORRUPT_RECORD_PRINCIPAL, TTL_EXPIRY_PRINCIPAL } from './system-principals.js';
import { isoTime } from '../../core/iso-time.js';

/**
 * Events read from the end of the log before a full scan. A decision is appended just before
 * its resolution file is created, so the waiting hook finds it among the last few.
 */
const RECENT_EVENTS = 256;

/**
 * Whether the audit log holds `r`'s decision event (same approval, decision and actor).
 * Every answer written through the queue is; a resolution file that is not was written
 * some other way, and must not be acted on. An unreadable log counts as not holding it.
 */
export function isRecorded(audit: AuditLog, r: Resolution): boolean {
  const matches = (e: AuditEvent): boolean => {
    const d = e.data as { approval_id?: unknown; decision?: unknown };
    return e.type === 'human_approval_decision' && e.actor === r.principal.id && d.approval_id === r.id && d.decision === r.decision;
  };
  try {
    if (audit.tail(RECENT_EVENTS).some(matches)) return true;
    for (const e of audit.events()) if (matches(e)) return true;
  } catch {
    // A line that is not JSON: the log is broken, and nothing in it vouches for the answer.
  }
  return false;
}

/** A denial under the corrupt-record principal, recorded (best effort) since no queue wrote it. */
function refuseOnFile(audit: AuditLog, request: PendingApproval, why: string, now: Date): Resolution {
  const denial: Resolution = { id: request.id, decision: 'reject', reason: `${why}; denied to be safe`, principal: CORRUPT_RECORD_PRINCIPAL, resolved_at: isoTime(now) };
  try {
    audit.append(decisionEvent(request, denial));
  } catch {
    // The hook denies either way; a broken log shows up in `gatehouse audit verify`.
  }
  return denial;
}

/** Why an answer on file is not acted on: written around the queue, so no audit event vouches for it. */
export const UNVOUCHED_REASON = 'the answer on file is not in the audit log, so it was not given through Gatehouse';

/** `r` if the audit log vouches for it, else a recorded denial. */
function vouched(audit: AuditLog, request: PendingApproval, r: Resolution, now: Date): Resolution {
  if (r.principal.id === CORRUPT_RECORD_PRINCIPAL.id) return refuseOnFile(audit, request, r.reason ?? 'the answer on file is unusable', now);
  return isRecorded(audit, r) ? r : refuseOnFile(audit, request, UNVOUCHED_REASON, now);
}

/**
 * The answer a waiting hook acts on now: the resolution on file if the audit log records
 * it (else a denial); once `request` has expired, the queue's expiry denial, which this
 * writes and records unless an answer got there first; null while it is still open.
 */
export function answerFor(paths: ApprovalPaths, audit: AuditLog, request: PendingApproval, now: Date): Resolution | null {
  // Asked first, so that a wait's every look at a missing answer does not build an ENOENT error.
  const file = recordFile(paths.resolved, request.id);
  const text = existsSync(file) ? readOrNull(file) : null;
  if (text !== null) {
    const parsed = parseResolution(text, request.id);
    return parsed.ok ? vouched(audit, request, parsed.value, now) : refuseOnFile(audit, request, parsed.reason, now);
  }
  if (now.getTime() < Date.parse(request.expires_at)) return null;
  const denial = expiryDenial(request, TTL_EXPIRY_PRINCIPAL, now);
  let settled: Settled;
  try {
    settled = settle(paths, audit, request, denial);
  } catch {
    // Cannot write it (disk full, permissions): the hook must still stop waiting and deny.
    return denial;
  }
  // Not recorded: nothing was written, and the hook still denies; the sweeper records the expiry later.
  return settled.kind === 'exists' ? vouched(audit, request, settled.winner, now) : denial;
}
