// `approvals.list`, `approvals.resolve`, `approvals.rules` and `approvals.revoke_rule` over the
// WebSocket: the same queue and rules as the CLI, with the connection's principal (never the client's word).
import { z } from 'zod';
import { listRules, revokeStoredRule } from '../../runtime/approvals/always-rules.js';
import type { PendingApproval } from '../../runtime/approvals/index.js';
import { APPROVAL_DECISIONS } from '../../runtime/approvals/index.js';
import { isSafeSessionId } from '../../runtime/state-dir.js';
import { RpcError } from './errors.js';
import { MAX_FRAME_BYTES } from './frames.js';
import type { Method } from './method.js';
import { defineMethod } from './method.js';

const ListParams = z.strictObject({
  session: z.string().refine(isSafeSessionId, { error: 'must be a session id (letters, digits, _ and -)' }).optional(),
});

const ResolveParams = z.strictObject({
  id: z.string().min(1),
  decision: z.enum(APPROVAL_DECISIONS),
  // The queue clips long reasons, as on every surface; the frame cap bounds them.
  reason: z.string().nullable().optional(),
  nonce: z.string().min(1),
});

const RevokeParams = z.strictObject({ id: z.string().min(1) });
const DetailParams = z.strictObject({ id: z.string().min(1) });

/** Room for the pending list in one frame: the frame minus the envelope of a response or event. */
const PENDING_BUDGET_BYTES = MAX_FRAME_BYTES - 1024;

/**
 * The pending list as one frame can carry it: oldest first (they expire first) until the
 * budget is used; `omitted` counts the newer ones left out, which show up as the first are
 * answered. Summaries run to 4,000 characters, so a full queue can outgrow a frame.
 */
export function fitPending(all: readonly PendingApproval[]): { pending: PendingApproval[]; omitted: number } {
  // Details (a diff of up to 40 KiB each) are fetched one at a time with approvals.detail.
  const pending = all.map(({ detail: _detail, ...rest }) => rest);
  let used = 0;
  let kept = 0;
  for (const p of pending) {
    used += Buffer.byteLength(JSON.stringify(p)) + 1;
    if (used > PENDING_BUDGET_BYTES) break;
    kept++;
  }
  return { pending: pending.slice(0, kept), omitted: pending.length - kept };
}

/** The `approvals.*` methods by name. */
export const APPROVAL_METHODS: Readonly<Record<string, Method>> = {
  'approvals.list': defineMethod('approvals:read', ListParams, (ctx, p) => fitPending(ctx.queue.list(p.session === undefined ? {} : { session: p.session }))),
  'approvals.resolve': defineMethod('approvals:resolve', ResolveParams, (ctx, p) => {
    const principal = ctx.conn.grant?.principal;
    if (principal === undefined) throw new Error('approvals.resolve reached without a principal');
    const result = ctx.queue.resolve(p.id, { decision: p.decision, nonce: p.nonce, reason: p.reason ?? null, principal });
    if (!result.ok) return new RpcError('approval_refused', result.error.message, result.error.code);
    return { resolution: result.value };
  }),
  'approvals.detail': defineMethod('approvals:read', DetailParams, (ctx, p) => {
    const state = ctx.queue.get(p.id);
    if (state.problem !== null) return new RpcError('no_such_approval', state.problem.message, state.problem.code);
    if (state.pending === null) return new RpcError('no_such_approval', `no approval ${p.id} in this project: it was answered and pruned, or never filed`);
    return { id: p.id, detail: state.pending.detail ?? null, answered: state.resolution !== null };
  }),
  'approvals.rules': defineMethod('approvals:read', z.strictObject({}), (ctx) => {
    const rules = listRules(ctx.rules.projectState, ctx.rules.config);
    if (!rules.ok) return new RpcError('rules_unreadable', rules.reason);
    return { rules: rules.value };
  }),
  'approvals.revoke_rule': defineMethod('approvals:resolve', RevokeParams, (ctx, p) => {
    const principal = ctx.conn.grant?.principal;
    if (principal === undefined) throw new Error('approvals.revoke_rule reached without a principal');
    const result = revokeStoredRule(ctx.rules.projectState, p.id, principal, ctx.rules.config);
    if (!result.ok) return new RpcError('revoke_refused', result.reason);
    return { revoked: result.value, revoked_by: principal.id };
  }),
};
