// The approval rows of the team store and the few statements every writer uses: file a
// request once, resolve it once (the first conditional UPDATE wins), expire it once, and tell
// every listener (NOTIFY) in the same transaction.
import type { Pool, PoolClient } from 'pg';
import type { AlwaysTarget } from '../../core/approvals/always-scope.js';
import type { ApprovalDetail } from '../../core/approvals/detail.js';
import type { Principal } from '../../core/approvals/principal.js';
import type { ApprovalDecision, PendingApproval, Resolution } from '../approvals/index.js';
import { TTL_EXPIRY_PRINCIPAL } from '../approvals/index.js';
import type { Machine } from './machine.js';
import { isoTime } from '../../core/iso-time.js';

/** The channel every approval change is announced on; the payload is a {@link ApprovalNotice} as JSON. */
export const APPROVAL_CHANNEL = 'gh_approvals';

/** What a NOTIFY on {@link APPROVAL_CHANNEL} says: which request changed, on whose machine, and how. */
export interface ApprovalNotice {
  id: string;
  machine: string;
  event: 'filed' | 'resolved' | 'applied';
}

/** A request as the store holds it: the local record (less its waiter), the machine and project it came from. */
export type StoreRequest = Omit<PendingApproval, 'pid' | 'waiter'> & { machine: Machine; project_key: string };

/** What the machine's queue answered the waiting agent, as its relay reported it. */
interface AppliedOutcome {
  decision: ApprovalDecision;
  principal: Principal;
  reason: string | null;
  at: string;
}

/** One row: the request, its resolution in the store, and what the agent acted on. */
export interface StoreApproval {
  request: StoreRequest;
  resolution: Resolution | null;
  /** The machine whose relay wrote the resolution (its local answer or an expiry); null when a resolver through the store API did. */
  resolvedByMachine: string | null;
  applied: AppliedOutcome | null;
  /** The agent acted on something other than the store's resolution; both are kept and shown. */
  conflict: boolean;
}

/** A row as the driver returns it (timestamptz as Date, jsonb parsed). */
export interface ApprovalRow {
  id: string;
  machine_id: string;
  host: string;
  os_user: string;
  project_key: string;
  session_id: string;
  agent: string;
  tool: string;
  summary: string;
  why: string | null;
  detail: ApprovalDetail | null;
  always_target: AlwaysTarget | null | { none: true };
  nonce: string;
  created_at: Date;
  expires_at: Date;
  decision: ApprovalDecision | null;
  principal: Principal | null;
  reason: string | null;
  resolved_at: Date | null;
  expired: boolean;
  resolved_by_machine: string | null;
  applied_decision: ApprovalDecision | null;
  applied_principal: Principal | null;
  applied_reason: string | null;
  applied_at: Date | null;
  conflict: boolean;
}

/** The columns every read takes. */
export const ROW_COLUMNS =
  'id, machine_id, host, os_user, project_key, session_id, agent, tool, summary, why, detail, always_target, nonce, created_at, expires_at, decision, principal, reason, resolved_at, expired, resolved_by_machine, applied_decision, applied_principal, applied_reason, applied_at, conflict';

/**
 * `always` has three states on a local record (absent: an older request; null: nothing to add;
 * a target). jsonb null and SQL NULL cannot tell the first two apart, so "null" is stored as
 * `{"none": true}` and an absent one as SQL NULL.
 */
const NO_ALWAYS = { none: true } as const;

function alwaysOf(v: ApprovalRow['always_target']): AlwaysTarget | null | undefined {
  if (v === null) return undefined;
  return 'none' in v ? null : v;
}

/** The resolution held in `row`, or null while it is open. */
export function resolutionOf(row: ApprovalRow): Resolution | null {
  if (row.decision === null || row.principal === null || row.resolved_at === null) return null;
  return { id: row.id, decision: row.decision, reason: row.reason, principal: row.principal, resolved_at: isoTime(row.resolved_at), ...(row.expired ? { expired: true } : {}) };
}

/** The whole row as the API gives it. */
export function approvalOf(row: ApprovalRow): StoreApproval {
  const always = alwaysOf(row.always_target);
  const request: StoreRequest = {
    id: row.id,
    nonce: row.nonce,
    session_id: row.session_id,
    agent: row.agent,
    tool: row.tool,
    summary: row.summary,
    ...(row.why === null ? {} : { why: row.why }),
    created_at: isoTime(row.created_at),
    expires_at: isoTime(row.expires_at),
    ...(always === undefined ? {} : { always }),
    ...(row.detail === null ? {} : { detail: row.detail }),
    machine: { id: row.machine_id, host: row.host, user: row.os_user },
    project_key: row.project_key,
  };
  const applied =
    row.applied_decision === null || row.applied_principal === null
      ? null
      : { decision: row.applied_decision, principal: row.applied_principal, reason: row.applied_reason, at: isoTime(row.applied_at ?? new Date(0)) };
  return { request, resolution: resolutionOf(row), resolvedByMachine: row.resolved_by_machine, applied, conflict: row.conflict };
}

/** Announces a change to every listener; inside a transaction it is sent at commit. */
async function notifyApproval(db: Pool | PoolClient, notice: ApprovalNotice): Promise<void> {
  await db.query('SELECT pg_notify($1, $2)', [APPROVAL_CHANNEL, JSON.stringify(notice)]);
}

/** `SELECT pg_notify(…)` of each row a data-modifying CTE `u` returned: sent at that statement's commit. */
const NOTIFY_EACH = (event: ApprovalNotice['event']): string =>
  `SELECT u.*, pg_notify('${APPROVAL_CHANNEL}', json_build_object('id', u.id, 'machine', u.machine_id, 'event', '${event}')::text) FROM u`;

/**
 * Files `p` from `machine` unless a row with its id exists, announcing it, in one statement;
 * returns whether this call inserted it. A retry after an outage never files a request twice.
 */
export async function insertRequest(pool: Pool, p: PendingApproval, machine: Machine, projectKey: string): Promise<boolean> {
  const r = await pool.query(
    `WITH u AS (
       INSERT INTO gh_approvals (id, machine_id, host, os_user, project_key, session_id, agent, tool, summary, why, detail, always_target, nonce, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
       ON CONFLICT (id) DO NOTHING
       RETURNING id, machine_id)
     ${NOTIFY_EACH('filed')}`,
    [
      p.id,
      machine.id,
      machine.host,
      machine.user,
      projectKey,
      p.session_id,
      p.agent,
      p.tool,
      p.summary,
      p.why ?? null,
      p.detail === undefined ? null : JSON.stringify(p.detail),
      p.always === undefined ? null : JSON.stringify(p.always ?? NO_ALWAYS),
      p.nonce,
      p.created_at,
      p.expires_at,
    ],
  );
  return r.rowCount === 1;
}

/** The resolution to write: its decision, who, why, and (for a machine's own answer) which machine and when. */
export interface ResolutionWrite {
  decision: ApprovalDecision;
  principal: Principal;
  reason: string | null;
  expired: boolean;
  /** The machine whose relay writes it; null for a resolver through the store API. */
  byMachine: string | null;
  /** When it was made; null: the database's now(). */
  at: string | null;
  /** Also record it as what the agent acted on (a machine pushing its own answer). */
  applied: boolean;
}

/**
 * Writes `w` as the resolution of `id` if it has none, and, unless `w.expired`, only if it was
 * made before the request expired (now, or at `w.at` for a machine's own earlier answer): one
 * conditional UPDATE, so of any number of racing resolvers exactly one gets a row back. The
 * NOTIFY is part of the same statement, so it is sent exactly when the answer commits.
 * Returns the row when this call won, else null.
 */
export async function resolveOnce(pool: Pool, id: string, w: ResolutionWrite): Promise<ApprovalRow | null> {
  const r = await pool.query<ApprovalRow>(
    `WITH u AS (
       UPDATE gh_approvals
          SET decision = $2, principal = $3, reason = $4, resolved_at = COALESCE($5::timestamptz, now()), expired = $6, resolved_by_machine = $7,
              applied_decision = CASE WHEN $8 THEN $2 ELSE applied_decision END,
              applied_principal = CASE WHEN $8 THEN $3::jsonb ELSE applied_principal END,
              applied_reason = CASE WHEN $8 THEN $4 ELSE applied_reason END,
              applied_at = CASE WHEN $8 THEN COALESCE($5::timestamptz, now()) ELSE applied_at END
        WHERE id = $1 AND decision IS NULL AND ($6 OR COALESCE($5::timestamptz, now()) < expires_at)
        RETURNING ${ROW_COLUMNS})
     ${NOTIFY_EACH('resolved')}`,
    [id, w.decision, JSON.stringify(w.principal), w.reason, w.at, w.expired, w.byMachine, w.applied],
  );
  return r.rows[0] ?? null;
}

/**
 * Resolves every open request whose time has run out (of any machine, or only `ids`) as the
 * queue's expiry denial, in one conditional UPDATE: whichever node runs it first writes each
 * denial, and a second node racing it finds nothing left. Returns the ids this call expired.
 */
export async function expireDue(pool: Pool, byMachine: string | null, ids?: readonly string[]): Promise<string[]> {
  const r = await pool.query<{ id: string }>(
    `WITH u AS (
       UPDATE gh_approvals
          SET decision = 'reject', principal = $1, resolved_at = now(), expired = true, resolved_by_machine = $2,
              reason = 'approval timed out after ' || round(extract(epoch FROM expires_at - created_at))::bigint || ' s'
        WHERE decision IS NULL AND expires_at <= now() AND ($3::text[] IS NULL OR id = ANY($3))
        RETURNING id, machine_id)
     ${NOTIFY_EACH('resolved')}`,
    [JSON.stringify(TTL_EXPIRY_PRINCIPAL), byMachine, ids === undefined ? null : [...ids]],
  );
  return r.rows.map((row) => row.id);
}

/** The rows of `ids` (those that exist), by id. */
export async function rowsById(pool: Pool, ids: readonly string[]): Promise<Map<string, ApprovalRow>> {
  const out = new Map<string, ApprovalRow>();
  if (ids.length === 0) return out;
  const r = await pool.query<ApprovalRow>(`SELECT ${ROW_COLUMNS} FROM gh_approvals WHERE id = ANY($1)`, [[...ids]]);
  for (const row of r.rows) out.set(row.id, row);
  return out;
}

/**
 * Records `outcome` as what the agent acted on, once (`WHERE applied_decision IS NULL`), and
 * whether it conflicts with the resolution. `beforeCommit` runs inside the transaction, only
 * when this call writes the row, so a local audit event it appends and the row go together
 * (a failing append rolls the row back; the next sync tries again). Returns whether it wrote.
 */
export async function recordApplied(pool: Pool, id: string, outcome: Resolution, conflict: boolean, beforeCommit: () => void): Promise<boolean> {
  const c = await pool.connect();
  try {
    await c.query('BEGIN');
    const r = await c.query<{ machine_id: string }>(
      `UPDATE gh_approvals SET applied_decision = $2, applied_principal = $3, applied_reason = $4, applied_at = $5, conflict = $6
        WHERE id = $1 AND applied_decision IS NULL RETURNING machine_id`,
      [id, outcome.decision, JSON.stringify(outcome.principal), outcome.reason, outcome.resolved_at, conflict],
    );
    const row = r.rows[0];
    if (row !== undefined) {
      beforeCommit();
      await notifyApproval(c, { id, machine: row.machine_id, event: 'applied' });
    }
    await c.query('COMMIT');
    return row !== undefined;
  } catch (err) {
    await c.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    c.release();
  }
}
