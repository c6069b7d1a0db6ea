// The approvals HTTP API: list the pending queue and resolve one approval. Every
// resolution names its principal, and the resolver must echo the record's nonce.
import { z } from 'zod';
import type { ApprovalQueue, ResolveError } from '../runtime/approvals/index.js';
import { APPROVAL_DECISIONS, isApprovalId } from '../runtime/approvals/index.js';
import { isSafeSessionId } from '../runtime/state-dir.js';
import type { Reply } from './http-io.js';
import { errorReply, readJsonBody } from './http-io.js';
import type { RouteContext, Router } from './router.js';

/**
 * Largest request body: a decision, a nonce and a reason the queue keeps (it clips at
 * 2,000 characters; up to 6 bytes each when JSON-escaped) fit with room to spare.
 */
export const MAX_BODY_BYTES = 64 * 1024;

/** The body of `POST /approvals/{id}/resolve`. */
const ResolveBody = z.object({
  decision: z.enum(APPROVAL_DECISIONS),
  nonce: z.string().min(1),
  // Long reasons are clipped by the queue, as for every other surface; the body cap bounds them.
  reason: z.string().nullable().optional(),
});

/** HTTP status for each way the queue can refuse a resolution. */
export const RESOLVE_STATUS: Record<ResolveError['code'], number> = {
  bad_id: 400,
  bad_decision: 400,
  bad_principal: 403,
  not_found: 404,
  nonce_mismatch: 409,
  already_resolved: 410,
  // The audit log could not record the answer, so none was made; the same answer can be sent again.
  not_recorded: 503,
};

/** Turns the first schema problem into the error a client can act on. */
function bodyError(body: unknown, issues: z.core.$ZodIssue[]): Reply {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return errorReply(400, 'bad_request', 'the body must be a JSON object like {"decision":"allow","nonce":"…"}');
  }
  const field = issues[0]?.path[0];
  if (field === 'decision') {
    return errorReply(400, 'bad_decision', `decision must be one of ${APPROVAL_DECISIONS.join(', ')}`);
  }
  if (field === 'nonce') {
    return errorReply(400, 'missing_nonce', 'send the nonce of the pending approval you are answering, as listed by GET /approvals/queue');
  }
  return errorReply(400, 'bad_reason', 'reason must be text (or null): a sentence for the agent on why you decided so');
}

function listQueue(queue: ApprovalQueue, ctx: RouteContext): Reply {
  const session = ctx.query.get('session');
  if (session !== null && !isSafeSessionId(session)) {
    return errorReply(400, 'bad_session', 'session must be a session id (letters, digits, _ and -)');
  }
  const pending = queue.list(session === null ? {} : { session });
  // The nonce is included on purpose: a resolver echoes it to prove it saw this exact record.
  return { status: 200, body: { pending } };
}

async function resolveOne(queue: ApprovalQueue, ctx: RouteContext): Promise<Reply> {
  const id = ctx.params.id ?? '';
  if (!isApprovalId(id)) {
    return errorReply(400, 'bad_id', 'that is not an approval id: use an id listed by GET /approvals/queue');
  }
  const read = await readJsonBody(ctx.req, MAX_BODY_BYTES);
  if (!read.ok) return read.reply;
  const body = ResolveBody.safeParse(read.value);
  if (!body.success) return bodyError(read.value, body.error.issues);
  if (ctx.principal === null) throw new Error('resolve route reached without a principal');
  const { decision, nonce, reason } = body.data;
  const result = queue.resolve(id, { decision, nonce, reason: reason ?? null, principal: ctx.principal });
  if (!result.ok) return errorReply(RESOLVE_STATUS[result.error.code] ?? 500, result.error.code, result.error.message);
  return { status: 200, body: { resolution: result.value } };
}

/**
 * Adds the approvals routes, served from `queue`, to `router`.
 * @example addApprovalRoutes(router, new ApprovalQueue(projectState))
 */
export function addApprovalRoutes(router: Router, queue: ApprovalQueue): Router {
  return router
    .add({ method: 'GET', path: '/approvals/queue', scope: 'approvals:read', handle: (ctx) => listQueue(queue, ctx) })
    .add({ method: 'POST', path: '/approvals/:id/resolve', scope: 'approvals:resolve', handle: (ctx) => resolveOne(queue, ctx) });
}
