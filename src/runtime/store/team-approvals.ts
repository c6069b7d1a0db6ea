// What the team dashboard needs from the team approval queue (built beside this, on
// PostgreSQL): every machine's pending approvals, and one exactly-once resolve.
import type { Principal } from '../../core/approvals/principal.js';

/** One pending approval of any machine, as the team dashboard lists it. */
export interface TeamPendingApproval {
  id: string;
  /** Echoed by a resolve, to prove the resolver saw this very record. */
  nonce: string;
  machine_id: string;
  host: string;
  user: string;
  project_key: string;
  session_id: string;
  /** The tool and what it would do, in words (as the local queue's record shows it). */
  tool: string;
  summary: string;
  created_at: string;
  expires_at: string | null;
}

/** A decision the team dashboard can make. */
type TeamDecision = 'allow' | 'deny';

/** The outcome of a resolve: made, or refused (409 wrong nonce, 410 someone else resolved it first or it expired, 404 no such id). */
export type TeamResolveOutcome =
  | { ok: true; resolved_by: string; decision: TeamDecision }
  | { ok: false; status: 404 | 409 | 410; code: string; message: string; winner: { decided_by: string; decision: string; at: string } | null };

/**
 * The team approval queue, as the dashboard uses it. `resolve` must be exactly-once across every
 * machine and dashboard: the first resolve wins, a later one gets 410 naming the winner.
 */
export interface TeamApprovals {
  listPending(): Promise<TeamPendingApproval[]>;
  resolve(id: string, decision: TeamDecision, principal: Principal, nonce: string, reason: string | null): Promise<TeamResolveOutcome>;
}
