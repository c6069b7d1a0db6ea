// The single-use approval page a notification links to (`/approve#t=<token>`): it shows the one
// call in full and answers it once, Allow or Reject with a reason. The token stays in the URL
// fragment, which no server, proxy log or Referer ever sees; it is sent only in a JSON body.
import { safeForDisplay } from '../core/display.js';
import type { PendingApproval } from '../protocol/approvals.js';
import { renderDetail } from './call-detail.js';
import { byId, h } from './dom.js';
import { formatAge, timeMs } from './format.js';

/** What `POST /api/link/view` answers. */
interface LinkView {
  project: string;
  channel: string;
  link_expires_at: string;
  approval: Omit<PendingApproval, 'pid' | 'waiter'>;
}

/** The expiry line refreshes this often. */
const TICK_MS = 1_000;

/** POSTs `body` as JSON; the parsed answer and its status (a body that is not JSON becomes an error). */
async function post(path: string, body: unknown): Promise<{ status: number; json: { error?: { message?: string } } & Record<string, unknown> }> {
  const res = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), credentials: 'omit', cache: 'no-store' });
  let json: Record<string, unknown>;
  try {
    json = (await res.json()) as Record<string, unknown>;
  } catch {
    json = { error: { message: `the server answered ${res.status} without JSON` } };
  }
  return { status: res.status, json };
}

function show(main: HTMLElement, ...nodes: (Node | string)[]): void {
  main.replaceChildren(...nodes);
}

function message(text: string, cls = 'note'): HTMLElement {
  return h('p', { id: 'status', class: cls, role: cls === 'error' ? 'alert' : 'status' }, text);
}

function render(main: HTMLElement, token: string, v: LinkView): void {
  const a = v.approval;
  const expires = h('span', { class: 'expires' });
  const tick = (): void => {
    const now = Date.now();
    const at = Math.min(timeMs(a.expires_at), timeMs(v.link_expires_at));
    expires.textContent = at > now ? `expires in ${formatAge(now, at)}` : 'expired';
  };
  tick();
  const timer = setInterval(tick, TICK_MS);
  const reason = h('input', { class: 'reason', type: 'text', maxlength: '2000', placeholder: 'Reason (optional, the agent sees it)', 'aria-label': 'Reason' });
  const allow = h('button', { type: 'button', class: 'decide allow', 'data-decision': 'allow' }, 'Allow');
  const reject = h('button', { type: 'button', class: 'decide reject', 'data-decision': 'reject' }, 'Reject');
  const result = h('p', { class: 'note', role: 'status' });
  const answer = async (decision: 'allow' | 'reject'): Promise<void> => {
    allow.disabled = true;
    reject.disabled = true;
    const trimmed = reason.value.trim();
    const res = await post('/api/link/answer', { token, nonce: a.nonce, decision, ...(trimmed === '' ? {} : { reason: trimmed }) }).catch((err: unknown) => ({
      status: 0,
      json: { error: { message: `the server cannot be reached (${(err as Error).message})` } },
    }));
    if (res.status === 200) {
      clearInterval(timer);
      result.className = 'note done';
      result.textContent = decision === 'allow' ? 'Allowed: the agent goes on with this call.' : 'Rejected: the agent is told your reason.';
      return;
    }
    result.className = 'error';
    result.textContent = res.json.error?.message ?? `the server answered ${res.status}`;
    // A used or expired link stays dead; anything else may be tried again.
    const retry = res.status !== 410 && res.status !== 404;
    allow.disabled = !retry;
    reject.disabled = !retry;
  };
  allow.addEventListener('click', () => void answer('allow'));
  reject.addEventListener('click', () => void answer('reject'));
  show(
    main,
    h(
      'article',
      { class: 'approval approve-card', 'data-id': a.id },
      h('div', { class: 'approval-head' }, h('strong', {}, safeForDisplay(a.tool)), h('span', { class: 'who' }, `${safeForDisplay(a.agent)} · ${safeForDisplay(a.session_id)}`), expires),
      h('pre', { class: 'summary', tabindex: '0', 'aria-label': 'The whole call' }, safeForDisplay(a.summary)),
      a.why === undefined ? '' : h('p', { class: 'why' }, `Why you are asked: ${safeForDisplay(a.why)}`),
      a.detail === undefined ? '' : renderDetail(a.detail),
      reason,
      h('div', { class: 'actions' }, allow, reject),
      result,
      h('p', { class: 'note' }, `This link answers this one call, once. Sent on ${safeForDisplay(v.channel)}; the answer is recorded as link:${safeForDisplay(v.channel)}.`),
    ),
  );
}

async function main(): Promise<void> {
  const target = byId('call', HTMLElement);
  const token = new URLSearchParams(location.hash.slice(1)).get('t');
  if (token === null || token === '') {
    show(target, message('This page needs the link from a Gatehouse notification: the part after # is missing.', 'error'));
    return;
  }
  const res = await post('/api/link/view', { token }).catch((err: unknown) => ({ status: 0, json: { error: { message: `the server cannot be reached (${(err as Error).message})` } } }));
  if (res.status !== 200) {
    show(target, message(res.json.error?.message ?? `the server answered ${res.status}`, 'error'));
    return;
  }
  const v = res.json as unknown as LinkView;
  byId('project', HTMLElement).textContent = `approval needed in ${safeForDisplay(v.project)}`;
  render(target, token, v);
}

void main();
