// The sessions list: every PTY the gateway runs (newest first) with its state, age and
// how it ended; one is selected (j/k) and one is attached to the terminal (Enter). A PTY that
// runs a Gatehouse session links to that session's record.
import { h } from './dom.js';
import { formatAge, formatExit, sessionTitle, timeMs } from './format.js';
import type { PtyExit, PtyInfo } from './wire.js';

/** Ages are shown to the second below a minute; refreshing this often keeps them honest. */
const AGE_REFRESH_MS = 5_000;

/**
 * Renders the sessions into a `role=listbox` element and tracks the selection.
 * @example const sv = new SessionsView(ul, (id) => void terminal.attach(id))
 */
export class SessionsView {
  readonly #list: HTMLElement;
  readonly #open: (id: string) => void;
  readonly #openRecord: (sessionId: string) => void;
  readonly #sessions = new Map<string, PtyInfo>();
  #selected: string | null = null;
  #attached: string | null = null;

  constructor(list: HTMLElement, open: (id: string) => void, openRecord: (sessionId: string) => void) {
    this.#list = list;
    this.#open = open;
    this.#openRecord = openRecord;
    list.addEventListener('click', (ev) => {
      const record = (ev.target as Element).closest<HTMLElement>('[data-record]')?.dataset.record;
      if (record !== undefined) {
        this.#openRecord(record);
        return;
      }
      const item = (ev.target as Element).closest<HTMLElement>('[data-id]');
      const id = item?.dataset.id;
      if (id === undefined) return;
      this.select(id);
      this.#open(id);
    });
    setInterval(() => this.#render(), AGE_REFRESH_MS);
  }

  /** Replaces the whole list (after `pty.list`). */
  setAll(infos: readonly PtyInfo[]): void {
    this.#sessions.clear();
    for (const i of infos) this.#sessions.set(i.id, i);
    this.#render();
  }

  /** Adds or updates one session (after `pty.spawn` or `pty.spawned`). */
  upsert(info: PtyInfo): void {
    this.#sessions.set(info.id, info);
    this.#render();
  }

  /** Records that a session ended. */
  ended(id: string, exit: PtyExit): void {
    const info = this.#sessions.get(id);
    if (info === undefined) return;
    this.#sessions.set(id, { ...info, state: 'exited', exit });
    this.#render();
  }

  /** The session with `id`, if listed. */
  get(id: string): PtyInfo | undefined {
    return this.#sessions.get(id);
  }

  /** The selected session's id. */
  get selected(): string | null {
    return this.#selected;
  }

  /** Marks `id` as the one shown in the terminal. */
  setAttached(id: string | null): void {
    this.#attached = id;
    this.#render();
  }

  /** Selects `id` and scrolls it into view. */
  select(id: string): void {
    this.#selected = id;
    this.#render();
    document.getElementById(itemId(id))?.scrollIntoView({ block: 'nearest' });
  }

  /** Moves the selection by `delta` rows (j = +1, k = −1), stopping at the ends. */
  move(delta: number): void {
    const ids = this.#ordered().map((i) => i.id);
    if (ids.length === 0) return;
    const at = this.#selected === null ? -1 : ids.indexOf(this.#selected);
    const next = at < 0 ? 0 : Math.min(ids.length - 1, Math.max(0, at + delta));
    const id = ids[next];
    if (id !== undefined) this.select(id);
  }

  /**
   * Gives the list keyboard focus with a session selected (the attached one, else the
   * newest), so Enter right after `s` attaches something instead of doing nothing.
   */
  focus(): void {
    this.#list.focus();
    if (this.#selected === null) this.selectDefault();
  }

  /** Selects the attached session, else the newest; nothing when the list is empty. */
  selectDefault(): void {
    const id = this.#attached ?? this.#ordered()[0]?.id;
    if (id !== undefined) this.select(id);
  }

  #ordered(): PtyInfo[] {
    return [...this.#sessions.values()].sort((a, b) => timeMs(b.created_at) - timeMs(a.created_at) || b.id.localeCompare(a.id));
  }

  #render(): void {
    const now = Date.now();
    const ordered = this.#ordered();
    if (this.#selected !== null && !this.#sessions.has(this.#selected)) this.#selected = null;
    const items = ordered.map((info) => {
      const exit = formatExit(info.exit);
      const selected = info.id === this.#selected;
      return h(
        'li',
        { id: itemId(info.id), role: 'option', 'data-id': info.id, 'aria-selected': String(selected), class: info.id === this.#attached ? 'attached' : undefined },
        h('span', { class: 'title' }, sessionTitle(info)),
        h(
          'span',
          { class: 'meta' },
          h('span', { class: `state state-${info.state}` }, info.state),
          h('span', { class: 'age', title: `started ${String(info.created_at)}` }, formatAge(timeMs(info.created_at), now)),
          h('span', { class: 'pid' }, `pid ${info.pid}`),
          exit === '' ? '' : h('span', { class: 'exit' }, exit),
          info.gatehouse_session === undefined
            ? ''
            : h('button', { type: 'button', class: 'ghost record-link', 'data-record': info.gatehouse_session, title: `Show Gatehouse session ${info.gatehouse_session}` }, 'record'),
        ),
      );
    });
    if (items.length === 0) items.push(h('li', { class: 'empty' }, 'No sessions yet: press n to start one.'));
    this.#list.replaceChildren(...items);
    if (this.#selected === null) this.#list.removeAttribute('aria-activedescendant');
    else this.#list.setAttribute('aria-activedescendant', itemId(this.#selected));
  }
}

function itemId(id: string): string {
  return `session-${id}`;
}
