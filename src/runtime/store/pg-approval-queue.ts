// The team's one approval queue in PostgreSQL, as resolvers see it (the team dashboard,
// `gatehouse approve --store`): every machine's open requests, and exactly-once resolution.
import { describeDecision } from '../../core/approvals/always-scope.js';
import { checkPrincipal } from '../../core/approvals/principal.js';
import { APPROVAL_DECISIONS, isApprovalId, type Resolution, type ResolveError } from '../approvals/index.js';
import { clip, MAX_REASON_CHARS, nonceMatches, type ResolveInput } from '../approvals/record.js';
import { NONCE_REQUIRED_AUTH } from '../approvals/queue.js';
import { principalFields } from '../approvals/system-principals.js';
import { isConnectionError, type PgStore } from './pg-connect.js';
import { approvalOf, expireDue, resolutionOf, resolveOnce, ROW_COLUMNS, rowsById, type ApprovalRow, type StoreApproval, type StoreRequest } from './pg-approval-rows.js';
import { listenApprovals, type ApprovalListener } from './pg-listen.js';
import { isoTime } from '../../core/iso-time.js';

/** Why the store refused an answer; `winner` names the resolution that stands when there is one. */
type StoreResolveError = ResolveError & { winner?: Resolution };
/** The outcome of {@link PgApprovalQueue.resolve}. */
export type StoreResolveResult = { ok: true; value: Resolution } | { ok: false; error: StoreResolveError };

/** Which open requests to list; all of the store's when empty. */
export interface StoreListFilter {
  project?: string;
  machine?: string;
  session?: string;
}

/** Most requests one list returns: a dashboard shows the oldest first, and more than this is a backlog no page shows. */
const MAX_LISTED = 500;

function refuse(code: ResolveError['code'], message: string, winner?: Resolution): StoreResolveResult {
  return { ok: false, error: { code, message, ...(winner === undefined ? {} : { winner }) } };
}

/**
 * The approval queue of a team store. Errors a caller can cause come back as values with the
 * file queue's codes (so the HTTP API maps them to the same statuses: 404, 409 nonce mismatch,
 * 410 already resolved or expired); a store that cannot be reached is `not_recorded` (503).
 * @example
 * const q = new PgApprovalQueue(store);
 * const [first] = await q.list();
 * await q.resolve(first.id, { decision: 'allow', nonce: first.nonce, principal });
 */
export class PgApprovalQueue {
  constructor(private readonly store: PgStore) {}

  /**
   * Open, unexpired requests of every machine (or those `filter` names), oldest first. Expired
   * ones are denied on the way (one conditional UPDATE, so only the first node to see them does).
   */
  async list(filter: StoreListFilter = {}): Promise<StoreRequest[]> {
    await expireDue(this.store.pool, null);
    const r = await this.store.pool.query<ApprovalRow>(
      `SELECT ${ROW_COLUMNS} FROM gh_approvals
        WHERE decision IS NULL AND expires_at > now()
          AND ($1::text IS NULL OR project_key = $1) AND ($2::text IS NULL OR machine_id = $2) AND ($3::text IS NULL OR session_id = $3)
        ORDER BY created_at, id LIMIT ${MAX_LISTED}`,
      [filter.project ?? null, filter.machine ?? null, filter.session ?? null],
    );
    return r.rows.map((row) => approvalOf(row).request);
  }

  /** The request with its resolution and what its agent acted on, or null when the store has no such id. */
  async get(id: string): Promise<StoreApproval | null> {
    if (!isApprovalId(id)) return null;
    const row = (await rowsById(this.store.pool, [id])).get(id);
    return row === undefined ? null : approvalOf(row);
  }

  /**
   * Answers request `id`: of any number of resolvers on any machines, exactly one wins (one
   * conditional UPDATE in one transaction, announced by NOTIFY at commit); the others are told
   * who won. Past its expiry the request is denied as timed out, and a late answer refused.
   * The waiting machine's relay writes the answer into its local queue, which records it.
   */
  async resolve(id: string, r: ResolveInput): Promise<StoreResolveResult> {
    if (!isApprovalId(id)) return refuse('bad_id', `${JSON.stringify(id)} is not an approval id (they look like ap-<time>-<hex>); list open requests with \`gatehouse approve --list --store\``);
    if (!APPROVAL_DECISIONS.includes(r.decision)) return refuse('bad_decision', `decision must be one of ${APPROVAL_DECISIONS.join(', ')}, got ${JSON.stringify(r.decision)}`);
    const reason = r.reason ?? null;
    if (reason !== null && typeof reason !== 'string') return refuse('bad_decision', 'reason must be text or null');
    const principal = checkPrincipal(r.principal);
    if (!principal.ok) return refuse('bad_principal', `the resolver cannot be named: ${principal.reason}`);
    try {
      const row = (await rowsById(this.store.pool, [id])).get(id);
      if (row === undefined) return refuse('not_found', `no approval ${id} in the team store ${this.store.label}; list open requests with \`gatehouse approve --list --store\``);
      // Before anything that reveals state: a caller without the nonce learns nothing more.
      if (r.nonce !== undefined || NONCE_REQUIRED_AUTH.includes(principal.value.auth)) {
        if (!nonceMatches(r.nonce, row.nonce)) return refuse('nonce_mismatch', `the nonce does not match approval ${id}; reload the request and answer what it shows now`);
      }
      const won = await resolveOnce(this.store.pool, id, {
        decision: r.decision,
        principal: principalFields(principal.value),
        reason: reason === null ? null : clip(reason, MAX_REASON_CHARS),
        expired: false,
        byMachine: null,
        at: null,
        applied: false,
      });
      if (won !== null) return { ok: true, value: resolutionOf(won)! };
      // Lost, or too late: an expired request is denied now (once, whoever gets there first).
      await expireDue(this.store.pool, null, [id]);
      const after = (await rowsById(this.store.pool, [id])).get(id);
      const winner = after === undefined ? null : resolutionOf(after);
      if (winner === null) throw new Error(`approval ${id} neither took the answer nor holds one`);
      const how = winner.expired ? `timed out at ${isoTime(after!.expires_at)}` : `answered ${describeDecision(winner.decision)} by ${winner.principal.id} at ${winner.resolved_at}`;
      return refuse('already_resolved', `approval ${id} was already resolved (${how}); nothing more to do`, winner);
    } catch (err) {
      if (!isConnectionError(err)) throw err;
      return refuse('not_recorded', `the team store ${this.store.label} cannot be reached, so approval ${id} was not answered; answer again once it is back`);
    }
  }

  /**
   * Calls `onChange` whenever any machine's request is filed, resolved or acted on, and after
   * each reconnect of the listening connection (changes may have been missed meanwhile).
   */
  watch(onChange: () => void): ApprovalListener {
    return listenApprovals(this.store, () => onChange(), { onUp: onChange });
  }
}
