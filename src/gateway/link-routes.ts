// The single-use approval page's API: a link's token (from the page's URL fragment, sent in a
// JSON body, never in a URL a proxy logs) shows its one call and answers it once, as
// `link:<channel>`. No other credential is needed or accepted; the token is the capability.
import { z } from 'zod';
import { linkPrincipal } from '../core/approvals/principal.js';
import type { ApprovalQueue } from '../runtime/approvals/index.js';
import type { LinkBook } from '../runtime/notify/links.js';
import { RESOLVE_STATUS } from './approvals-routes.js';
import type { Reply } from './http-io.js';
import { errorReply, readJsonBody } from './http-io.js';
import type { RouteContext, Router } from './router.js';
import { isoTime } from '../core/iso-time.js';

/** A token, a nonce, a decision and a reason the queue clips at 2,000 characters. */
const MAX_LINK_BODY_BYTES = 16 * 1024;

const ViewBody = z.strictObject({ token: z.string() });
const AnswerBody = z.strictObject({
  token: z.string(),
  nonce: z.string().min(1),
  // A link answers one call: "always" makes rules, which needs the dashboard.
  decision: z.enum(['allow', 'reject']),
  reason: z.string().nullable().optional(),
});

/** What the approval page needs. */
interface LinkRoutesOptions {
  queue: ApprovalQueue;
  links: LinkBook;
  /** The project's name, shown on the page. */
  project: string;
}

async function body<S extends z.ZodType>(ctx: RouteContext, schema: S): Promise<{ ok: true; value: z.output<S> } | { ok: false; reply: Reply }> {
  const read = await readJsonBody(ctx.req, MAX_LINK_BODY_BYTES);
  if (!read.ok) return read;
  const parsed = schema.safeParse(read.value);
  if (parsed.success) return { ok: true, value: parsed.data };
  const field = parsed.error.issues[0]?.path[0];
  const what = field === 'decision' ? 'decision must be allow or reject' : field === 'nonce' ? 'send the nonce the page was shown' : 'send {"token": "…"} as the page does';
  return { ok: false, reply: errorReply(400, `bad_${typeof field === 'string' ? field : 'request'}`, what) };
}

/** The call a link is for, while it can still be answered; 410 once it cannot. */
function openCall(opts: LinkRoutesOptions, approvalId: string): Reply | { pending: NonNullable<ReturnType<ApprovalQueue['get']>['pending']> } {
  const state = opts.queue.get(approvalId);
  if (state.resolution !== null) {
    const by = state.resolution.expired === true ? 'nobody answered in time, so it was denied' : `${state.resolution.principal.id} answered ${state.resolution.decision}`;
    return errorReply(410, 'answered', `This call has already been settled: ${by}.`);
  }
  if (state.pending === null) return errorReply(410, 'answered', 'This call is no longer waiting.');
  if (Date.now() >= Date.parse(state.pending.expires_at)) return errorReply(410, 'link_expired', 'This call has expired: nobody answered in time, so it is denied.');
  return { pending: state.pending };
}

/** Where links are looked up: one project's, or (`serve --all`) every served project's, each link in exactly one book. */
type LinkBooks = LinkRoutesOptions | (() => readonly LinkRoutesOptions[]);

/** The project whose book issued `token` (used or expired links too); a token no book knows goes to the first, which refuses it as unknown. */
function bookFor(books: LinkBooks, token: string): LinkRoutesOptions | null {
  if (typeof books !== 'function') return books;
  const all = books();
  const issued = (o: LinkRoutesOptions): boolean => {
    const seen = o.links.peek(token);
    return seen.ok || seen.refusal.code !== 'unknown_link';
  };
  return all.find(issued) ?? all[0] ?? null;
}

const UNKNOWN_LINK: Reply = errorReply(404, 'unknown_link', 'This link is not one this server sent (or the server restarted since): open the dashboard instead.');

async function view(books: LinkBooks, ctx: RouteContext): Promise<Reply> {
  const b = await body(ctx, ViewBody);
  if (!b.ok) return b.reply;
  const opts = bookFor(books, b.value.token);
  if (opts === null) return UNKNOWN_LINK;
  const seen = opts.links.peek(b.value.token);
  if (!seen.ok) return errorReply(seen.refusal.status, seen.refusal.code, seen.refusal.message);
  const open = openCall(opts, seen.grant.approvalId);
  if (!('pending' in open)) return open;
  const { pid: _pid, waiter: _waiter, ...call } = open.pending;
  return { status: 200, body: { project: opts.project, channel: seen.grant.channel, link_expires_at: isoTime(seen.grant.expiresAt), approval: call } };
}

async function answer(books: LinkBooks, ctx: RouteContext): Promise<Reply> {
  const b = await body(ctx, AnswerBody);
  if (!b.ok) return b.reply;
  const opts = bookFor(books, b.value.token);
  if (opts === null) return UNKNOWN_LINK;
  const used = opts.links.use(b.value.token);
  if (!used.ok) return errorReply(used.refusal.status, used.refusal.code, used.refusal.message);
  const principal = linkPrincipal(used.grant.channel);
  if (!principal.ok) throw new Error(`a link was issued for a channel that cannot name a principal: ${principal.reason}`);
  const open = openCall(opts, used.grant.approvalId);
  if (!('pending' in open)) return open;
  const result = opts.queue.resolve(used.grant.approvalId, { decision: b.value.decision, nonce: b.value.nonce, reason: b.value.reason ?? null, principal: principal.value });
  if (!result.ok) {
    // Nothing was answered: a page shown a stale call, or a log that could not record it, may try again.
    if (result.error.code === 'nonce_mismatch' || result.error.code === 'not_recorded') used.giveBack();
    const status = result.error.code === 'not_found' ? 410 : (RESOLVE_STATUS[result.error.code] ?? 500);
    return errorReply(status, result.error.code, result.error.message);
  }
  return { status: 200, body: { resolution: result.value } };
}

/**
 * Adds `POST /api/link/view` and `POST /api/link/answer` to `router`. The page itself is
 * served with the dashboard's files (`GET /approve`). For several projects, give a function
 * that lists every project's book: a link's token finds its own.
 * @example addLinkRoutes(router, { queue, links, project: 'shop' })
 */
export function addLinkRoutes(router: Router, books: LinkBooks): Router {
  return router.add({ method: 'POST', path: '/api/link/view', handle: (ctx) => view(books, ctx) }).add({ method: 'POST', path: '/api/link/answer', handle: (ctx) => answer(books, ctx) });
}
