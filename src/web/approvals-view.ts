// The approvals queue: one card per pending request with allow / reject / always (this session
// or the project), what "always" would allow, and a reason; answers echo the request's nonce.
import { describeAlways, describeLifetime } from '../core/approvals/always-scope.js';
import { safeForDisplay } from '../core/display.js';
import type { ApprovalDetail } from '../protocol/approvals.js';
import { renderDetail } from './call-detail.js';
import { h } from './dom.js';
import { formatAge, timeMs } from './format.js';
import type { RpcClient } from './rpc-client.js';
import type { Decision, PendingApproval } from './wire.js';

/** Expiry countdowns tick this often. */
const COUNTDOWN_MS = 1_000;

/** The buttons of a card, in order. */
const DECISIONS: readonly { decision: Decision; label: string; title: string }[] = [
  { decision: 'allow', label: 'Allow', title: 'Let the agent make this one call' },
  { decision: 'reject', label: 'Reject', title: 'Refuse the call; the agent sees your reason' },
  { decision: 'always', label: 'Always (this session)', title: 'Allow, and allow exactly this again in this session only' },
  { decision: 'always-project', label: 'Always (project)', title: 'Allow, and allow exactly this again in this and every later session, until revoked' },
];

/** Slack, in pixels, for a scroll position that rounds short of the very end. */
const SCROLL_END_SLACK_PX = 2;

/**
 * An "Always" makes a rule for the whole call, so it is offered only once all of it has been on
 * screen: at once when the call fits its box, else when the box has been scrolled to its end.
 */
function offerAlwaysOnceSeen(card: HTMLElement): void {
  const box = card.querySelector<HTMLElement>('.summary');
  if (box === null || card.dataset.seen === 'yes') return;
  const seen = box.scrollTop + box.clientHeight >= box.scrollHeight - SCROLL_END_SLACK_PX;
  if (seen) card.dataset.seen = 'yes';
  for (const b of card.querySelectorAll<HTMLButtonElement>('button[data-decision^="always"]')) {
    b.disabled = !seen;
    b.title = seen ? (DECISIONS.find((d) => d.decision === b.dataset.decision)?.title ?? '') : 'Scroll the call to its end first: Always makes a rule for all of it';
  }
}

/**
 * Renders the pending approvals into a list and resolves them over the WebSocket.
 * @example const av = new ApprovalsView(ul, badge, rpc); av.setAll(pending)
 */
export class ApprovalsView {
  readonly #list: HTMLElement;
  readonly #badge: HTMLElement;
  readonly #rpc: RpcClient;
  /** Cards by approval id, kept across updates so a half-typed reason survives. */
  readonly #cards = new Map<string, HTMLElement>();

  constructor(list: HTMLElement, badge: HTMLElement, rpc: RpcClient) {
    this.#list = list;
    this.#badge = badge;
    this.#rpc = rpc;
    setInterval(() => this.#tick(), COUNTDOWN_MS);
    this.setAll([]);
  }

  /** Reloads the queue (`approvals.list`). */
  async refresh(): Promise<void> {
    const res = await this.#rpc.call<{ pending: PendingApproval[]; omitted?: number }>('approvals.list');
    this.setAll(res.pending, res.omitted ?? 0);
  }

  /**
   * Shows exactly `pending` (after `approvals.list` or `approvals.changed`); `omitted`
   * counts newer requests the gateway left out to keep one frame small.
   */
  setAll(pending: readonly PendingApproval[], omitted = 0): void {
    const keep = new Set(pending.map((p) => p.id));
    for (const [id, card] of this.#cards) {
      if (keep.has(id)) continue;
      card.remove();
      this.#cards.delete(id);
    }
    const ordered = [...pending].sort((a, b) => timeMs(a.created_at) - timeMs(b.created_at));
    const cards = ordered.map((p) => this.#cards.get(p.id) ?? this.#card(p));
    const more = omitted > 0 ? [h('li', { class: 'empty' }, `${omitted} more waiting: they appear as these are answered.`)] : [];
    if (cards.length === 0 && omitted === 0) this.#list.replaceChildren(h('li', { class: 'empty' }, 'Nothing waiting for you.'));
    else this.#list.replaceChildren(...cards, ...more);
    for (const card of cards) offerAlwaysOnceSeen(card);
    const total = pending.length + omitted;
    this.#badge.textContent = String(total);
    this.#badge.classList.toggle('hot', total > 0);
    this.#tick();
    this.onShown?.(pending, omitted);
  }

  /** Called with every queue shown (the title count and notifications follow it). */
  onShown: ((pending: readonly PendingApproval[], omitted: number) => void) | null = null;

  /** Focuses the oldest request's Allow button; false if the queue is empty. */
  focusFirst(): boolean {
    const button = this.#list.querySelector<HTMLButtonElement>('button[data-decision="allow"]');
    button?.focus();
    return button !== null;
  }

  #card(record: PendingApproval): HTMLElement {
    // Every field came from a file the agent may have rewritten: shown inert, as the CLI and the TUI show it.
    const p = shownRecord(record);
    const reason = h('input', { class: 'reason', type: 'text', maxlength: '2000', placeholder: 'Reason (optional, the agent sees it)', 'aria-label': `Reason for ${p.tool}` });
    const error = h('p', { class: 'error', role: 'alert' });
    const buttons = DECISIONS.map((d) => h('button', { type: 'button', class: `decide ${d.decision}`, 'data-decision': d.decision, title: d.title }, d.label));
    // The diff, the command's context or the input: fetched on its own, so the list stays one small frame.
    const detail = h('div', { class: 'detail-slot' }, h('p', { class: 'note' }, 'Loading the call\u2019s detail\u2026'));
    const card = h(
      'li',
      { class: 'approval', 'data-id': p.id, 'data-expires': p.expires_at },
      h('div', { class: 'approval-head' }, h('strong', {}, p.tool), h('span', { class: 'who' }, `${p.agent} · ${p.session_id}`), h('span', { class: 'expires' })),
      // The whole call, wrapped and scrollable (also from the keyboard): never cut.
      h('pre', { class: 'summary', tabindex: '0', 'aria-label': `The whole ${p.tool} call` }, p.summary),
      // Why this call is the person's to answer (the classifier's reason), when the request says.
      p.why !== undefined ? h('p', { class: 'why' }, `Why you are asked: ${p.why}`) : '',
      detail,
      // What each "Always" would allow, before either is pressed.
      h('p', { class: 'always-scope' }, safeForDisplay(describeAlways(record.always, 'session', record.session_id)), p.always ? `. Always (project): the same, ${describeLifetime('project')}.` : ''),
      reason,
      h('div', { class: 'actions' }, ...buttons),
      error,
    );
    for (const b of buttons) {
      b.addEventListener('click', () => {
        void this.#resolve(record, b.dataset.decision as Decision, reason.value, card, error);
      });
    }
    card.querySelector('.summary')?.addEventListener('scroll', () => offerAlwaysOnceSeen(card));
    this.#cards.set(p.id, card);
    void this.#loadDetail(p.id, detail);
    return card;
  }

  async #loadDetail(id: string, slot: HTMLElement): Promise<void> {
    try {
      const res = await this.#rpc.call<{ detail: ApprovalDetail | null }>('approvals.detail', { id });
      slot.replaceChildren(res.detail === null ? '' : renderDetail(res.detail));
    } catch (err) {
      slot.replaceChildren(h('p', { class: 'error' }, `The call's detail could not be loaded: ${(err as Error).message}. The summary above is the whole call.`));
    }
  }

  async #resolve(p: PendingApproval, decision: Decision, reason: string, card: HTMLElement, error: HTMLElement): Promise<void> {
    const buttons = card.querySelectorAll('button');
    for (const b of buttons) b.disabled = true;
    error.textContent = '';
    const trimmed = reason.trim();
    const params = trimmed === '' ? { id: p.id, decision, nonce: p.nonce } : { id: p.id, decision, nonce: p.nonce, reason: trimmed };
    try {
      await this.#rpc.call('approvals.resolve', params);
      card.classList.add('resolved');
    } catch (err) {
      error.textContent = (err as Error).message;
      for (const b of buttons) b.disabled = false;
      offerAlwaysOnceSeen(card);
    }
  }

  #tick(): void {
    const now = Date.now();
    for (const card of this.#cards.values()) {
      const expires = card.querySelector('.expires');
      const at = timeMs(card.dataset.expires ?? '');
      if (expires !== null) expires.textContent = at > now ? `expires in ${formatAge(now, at)}` : 'expiring';
    }
  }
}

/** The labels and text of a request made inert for display (the request itself is answered as filed). */
function shownRecord(p: PendingApproval): PendingApproval {
  return {
    ...p,
    tool: safeForDisplay(p.tool),
    agent: safeForDisplay(p.agent),
    session_id: safeForDisplay(p.session_id),
    summary: safeForDisplay(p.summary),
    ...(p.why === undefined ? {} : { why: safeForDisplay(p.why) }),
  };
}
