// The team dashboard's routes (`serve --store`): every machine's sessions from the session
// registry, every machine's pending approvals, resolving one exactly once, and fetching a bundle.
import { z } from 'zod';
import { EVIDENCE_ID_RE } from '../runtime/evidence/seal.js';
import { fetchEvidence } from '../runtime/store/evidence-rows.js';
import { isConnectionError, type PgStore } from '../runtime/store/pg-connect.js';
import type { TeamApprovals } from '../runtime/store/team-approvals.js';
import { listTeamSessions } from '../runtime/store/team-sessions.js';
import { MAX_BODY_BYTES } from './approvals-routes.js';
import { errorReply, readJsonBody, type Reply } from './http-io.js';
import type { RouteContext, Router } from './router.js';

/** What the team routes read from. */
export interface TeamSource {
  /** The store's label, for people. */
  label: string;
  /** This server's machine id: its own sessions are the ones whose terminals it can show. */
  machineId: string;
  /** The open store; null while it cannot be reached. */
  store: () => PgStore | null;
  /** The team approval queue (every machine's requests, one exactly-once resolve). */
  approvals: TeamApprovals;
}

const ResolveBody = z.object({ decision: z.enum(['allow', 'deny']), nonce: z.string().min(1), reason: z.string().max(2_000).nullable().optional() });

function down(label: string): Reply {
  return errorReply(503, 'store_unreachable', `the team store ${label} cannot be reached now; this server keeps trying. Check the database, then reload.`);
}

/** Runs a store read; a connection error is a 503 that says so, anything else a bug. */
async function reading(src: TeamSource, read: (store: PgStore) => Promise<Reply>): Promise<Reply> {
  const store = src.store();
  if (store === null) return down(src.label);
  try {
    return await read(store);
  } catch (err) {
    if (isConnectionError(err)) return down(src.label);
    throw err;
  }
}

async function resolveTeam(src: TeamSource, ctx: RouteContext): Promise<Reply> {
  const read = await readJsonBody(ctx.req, MAX_BODY_BYTES);
  if (!read.ok) return read.reply;
  const body = ResolveBody.safeParse(read.value);
  if (!body.success) return errorReply(400, 'bad_request', 'send {"decision":"allow"|"deny","nonce":"…"} with the nonce listed by GET /api/team/approvals');
  if (ctx.principal === null) throw new Error('team resolve route reached without a principal');
  const approvals = src.approvals;
  return reading(src, async () => {
    const r = await approvals.resolve(ctx.params.id ?? '', body.data.decision, ctx.principal!, body.data.nonce, body.data.reason ?? null);
    if (r.ok) return { status: 200, body: { resolution: r } };
    return { status: r.status, body: { error: { code: r.code, message: r.message }, winner: r.winner } };
  });
}

/**
 * Adds the team routes. Reading needs `approvals:read`, resolving `approvals:resolve`, as for one project.
 * @example addTeamRoutes(router, { label, machineId, store: () => link.store(), approvals: teamApprovalsOn(() => link.store(), link.label) })
 */
export function addTeamRoutes(router: Router, src: TeamSource): Router {
  return router
    .add({
      method: 'GET',
      path: '/api/team/sessions',
      scope: 'approvals:read',
      handle: () => reading(src, async (store) => ({ status: 200, body: { store: src.label, machine_id: src.machineId, ...(await listTeamSessions(store.pool)) } })),
    })
    .add({
      method: 'GET',
      path: '/api/team/approvals',
      scope: 'approvals:read',
      handle: async () => {
        const approvals = src.approvals;
        return reading(src, async () => ({ status: 200, body: { wired: true, pending: await approvals.listPending() } }));
      },
    })
    .add({ method: 'POST', path: '/api/team/approvals/:id/resolve', scope: 'approvals:resolve', handle: (ctx) => resolveTeam(src, ctx) })
    .add({
      method: 'GET',
      path: '/api/team/evidence/:id',
      scope: 'approvals:read',
      handle: (ctx) => {
        const id = ctx.params.id ?? '';
        if (!EVIDENCE_ID_RE.test(id)) return errorReply(400, 'bad_id', 'that is not an evidence id (ev-<yyyymmddThhmmssZ>-<16 hex>)');
        return reading(src, async (store) => {
          const r = await fetchEvidence(store.pool, id);
          return r.ok ? { status: 200, body: r.value, headers: { 'content-disposition': `attachment; filename="${id}.evidence.json"` } } : errorReply(404, 'not_found', r.reason);
        });
      },
    });
}
