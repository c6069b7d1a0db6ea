// The project's recorded Gatehouse sessions (started here or from the CLI), newest first, read
// from its state folder through `sessions.list`, so they outlive a restart of `serve`.
import { h } from './dom.js';
import { formatAge, timeMs } from './format.js';
import type { RpcClient } from './rpc-client.js';
import type { SessionList, SessionSummary } from './wire.js';

/** How often the list is read again: a session started from the CLI sends the page no event. */
const REFRESH_MS = 10_000;

/**
 * Lists the sessions into `list` (each a button that opens its record) and counts them in `count`.
 * @example const rv = new SessionRecordsView(ul, badge, rpc, (id) => void detail.show(id)); await rv.refresh()
 */
export class SessionRecordsView {
  readonly #list: HTMLElement;
  readonly #count: HTMLElement;
  readonly #rpc: RpcClient;
  #last: SessionList | null = null;

  constructor(list: HTMLElement, count: HTMLElement, rpc: RpcClient, show: (id: string) => void) {
    this.#list = list;
    this.#count = count;
    this.#rpc = rpc;
    list.addEventListener('click', (ev) => {
      const id = (ev.target as Element).closest<HTMLElement>('[data-record]')?.dataset.record;
      if (id !== undefined) show(id);
    });
    setInterval(() => void this.refresh(), REFRESH_MS);
  }

  /** Reads the list again; while offline it keeps what it showed, and says why below it. */
  async refresh(): Promise<void> {
    try {
      this.#last = await this.#rpc.call<SessionList>('sessions.list');
      this.#render(null);
    } catch (err) {
      this.#render(`Cannot list the sessions: ${(err as Error).message}`);
    }
  }

  /** The listed session with `id`, if any. */
  get(id: string): SessionSummary | undefined {
    return this.#last?.sessions.find((s) => s.id === id);
  }

  #render(problem: string | null): void {
    const sessions = this.#last?.sessions ?? [];
    const now = Date.now();
    const items: HTMLElement[] = sessions.map((s) =>
      h(
        'li',
        {},
        h(
          'button',
          { type: 'button', class: 'record', 'data-record': s.id, title: `Show session ${s.id}` },
          h('span', { class: 'record-title' }, s.id),
          h(
            'span',
            { class: 'meta' },
            h('span', { class: 'record-agent' }, s.agent),
            h('span', { class: `record-status status-${s.status === 'active' ? 'active' : 'ended'}` }, s.status),
            h('span', { class: 'age', title: `started ${s.started_at}` }, formatAge(timeMs(s.started_at), now)),
            s.verdict === null ? '' : h('span', { class: `verdict verdict-${s.verdict === 'passed' ? 'ok' : 'bad'}` }, s.verdict),
            s.pty_id === null ? '' : h('span', { class: 'live' }, 'terminal here'),
          ),
        ),
      ),
    );
    if (items.length === 0) items.push(h('li', { class: 'empty' }, 'No Gatehouse sessions in this project yet.'));
    const omitted = this.#last?.omitted ?? 0;
    if (omitted > 0) items.push(h('li', { class: 'empty' }, `…and ${omitted} older (gatehouse session list shows every one)`));
    if (problem !== null) items.push(h('li', { class: 'error' }, problem));
    this.#list.replaceChildren(...items);
    this.#count.textContent = String(sessions.length + omitted);
  }
}
