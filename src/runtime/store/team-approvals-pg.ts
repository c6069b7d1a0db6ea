// The team dashboard's approval queue, on the PostgreSQL queue: every machine's open requests,
// and one exactly-once resolve whose refusals carry the file API's statuses and the winner.
import type { Principal } from '../../core/approvals/principal.js';
import type { PgStore } from './pg-connect.js';
import { PgApprovalQueue } from './pg-approval-queue.js';
import type { TeamApprovals, TeamPendingApproval, TeamResolveOutcome } from './team-approvals.js';

/** Refusal codes of the store queue and the status each gets (the file queue's HTTP API's). */
const STATUS: Record<string, 404 | 409 | 410> = { not_found: 404, bad_id: 404, nonce_mismatch: 409, already_resolved: 410, expired: 410 };

/** Thrown while the link has no open store: the routes answer 503, as for a store that is down. */
function noStore(label: string): Error {
  return Object.assign(new Error(`Connection terminated: the team store ${label} is not open yet`), { code: 'ECONNREFUSED' });
}

/**
 * The team queue for the dashboard, over whatever store the link holds now.
 * @example addTeamRoutes(router, { …, approvals: teamApprovalsOn(() => link.store(), link.label) })
 */
export function teamApprovalsOn(store: () => PgStore | null, label: string): TeamApprovals {
  const queue = (): PgApprovalQueue => {
    const s = store();
    if (s === null) throw noStore(label);
    return new PgApprovalQueue(s);
  };
  return {
    async listPending(): Promise<TeamPendingApproval[]> {
      return (await queue().list()).map((r) => ({
        id: r.id,
        nonce: r.nonce,
        machine_id: r.machine.id,
        host: r.machine.host,
        user: r.machine.user,
        project_key: r.project_key,
        session_id: r.session_id,
        tool: r.tool,
        summary: r.summary,
        created_at: r.created_at,
        expires_at: r.expires_at,
      }));
    },
    async resolve(id: string, decision: 'allow' | 'deny', principal: Principal, nonce: string, reason: string | null): Promise<TeamResolveOutcome> {
      const r = await queue().resolve(id, { decision: decision === 'allow' ? 'allow' : 'reject', principal, nonce, reason });
      if (r.ok) return { ok: true, resolved_by: r.value.principal.id, decision };
      if (r.error.code === 'not_recorded') throw noStore(label);
      const status = STATUS[r.error.code];
      if (status === undefined) throw new Error(`the team queue refused a checked answer: ${r.error.code}: ${r.error.message}`);
      // The dashboard speaks allow/deny: a winner's `reject` is told as `deny` (an `always` stays itself).
      const w = r.error.winner;
      return {
        ok: false,
        status,
        code: r.error.code,
        message: r.error.message,
        winner: w === undefined ? null : { decided_by: w.principal.id, decision: w.decision === 'reject' ? 'deny' : w.decision, at: w.resolved_at },
      };
    },
  };
}
