// The team panel (`serve --store`): every machine's sessions from the team store's registry and
// every machine's pending approvals. A session on another machine shows its record, never a terminal.
import { h } from './dom.js';
import { formatAge, timeMs } from './format.js';

/** How often the panel reads the store again: sessions of other machines send this page no event. */
const REFRESH_MS = 5_000;

/** One row of `GET /api/team/sessions`, as far as the panel reads it. */
interface TeamSessionRow {
  machine_id: string;
  host: string;
  user: string;
  session_id: string;
  agent: string;
  worktree: string;
  status: string;
  started_at: string | null;
  ended_at: string | null;
  verdict: string | null;
  evidence_id: string | null;
  sandboxed: boolean;
}

/** One row of `GET /api/team/approvals`. */
interface TeamApprovalRow {
  id: string;
  nonce: string;
  host: string;
  user: string;
  session_id: string;
  tool: string;
  summary: string;
}

const isText = (v: unknown): v is string => typeof v === 'string';

function asSessions(v: unknown): { machine_id: string; store: string; sessions: TeamSessionRow[]; omitted: number } | null {
  if (typeof v !== 'object' || v === null) return null;
  const d = v as Record<string, unknown>;
  if (!isText(d.machine_id) || !isText(d.store) || !Array.isArray(d.sessions)) return null;
  const sessions = d.sessions.filter((s): s is TeamSessionRow => {
    const r = s as Record<string, unknown> | null;
    return typeof r === 'object' && r !== null && isText(r.machine_id) && isText(r.host) && isText(r.user) && isText(r.session_id) && isText(r.agent) && isText(r.worktree) && isText(r.status);
  });
  return { machine_id: d.machine_id, store: d.store, sessions, omitted: typeof d.omitted === 'number' ? d.omitted : 0 };
}

function asApprovals(v: unknown): { wired: boolean; pending: TeamApprovalRow[] } | null {
  if (typeof v !== 'object' || v === null) return null;
  const d = v as Record<string, unknown>;
  if (typeof d.wired !== 'boolean' || !Array.isArray(d.pending)) return null;
  const pending = d.pending.filter((a): a is TeamApprovalRow => {
    const r = a as Record<string, unknown> | null;
    return typeof r === 'object' && r !== null && isText(r.id) && isText(r.nonce) && isText(r.host) && isText(r.user) && isText(r.tool) && isText(r.summary);
  });
  return { wired: d.wired, pending };
}

/** The verdict badge's class: passed is good, anything else is not. */
const verdictClass = (v: string): string => (v === 'passed' ? 'verdict verdict-ok' : 'verdict verdict-bad');

/**
 * Keeps the team panel (`section`, hidden on a server without a team store) showing the store's sessions and approvals.
 * @example const t = new TeamView(section, sessionsUl, approvalsUl, status, () => rpc.token); void t.refresh()
 */
export class TeamView {
  readonly #section: HTMLElement;
  readonly #sessions: HTMLElement;
  readonly #approvals: HTMLElement;
  readonly #status: HTMLElement;
  readonly #token: () => string | null;

  constructor(section: HTMLElement, sessions: HTMLElement, approvals: HTMLElement, status: HTMLElement, token: () => string | null) {
    this.#section = section;
    this.#sessions = sessions;
    this.#approvals = approvals;
    this.#status = status;
    this.#token = token;
    approvals.addEventListener('click', (ev) => {
      const button = (ev.target as Element).closest<HTMLButtonElement>('button[data-decision]');
      const row = button?.closest<HTMLElement>('[data-approval]');
      if (button && row?.dataset.approval && row.dataset.nonce) void this.#resolve(row.dataset.approval, row.dataset.nonce, button.dataset.decision ?? '');
    });
    setInterval(() => void this.refresh(), REFRESH_MS);
  }

  #headers(json = false): Record<string, string> {
    const token = this.#token();
    return { accept: 'application/json', ...(json ? { 'content-type': 'application/json' } : {}), ...(token === null ? {} : { authorization: `Bearer ${token}` }) };
  }

  /** Whether the server has a team store (`GET /api/projects` says), asked once; null until known. */
  #enabled: boolean | null = null;

  /** Reads both lists again; on a server without a team store the panel stays hidden and nothing is asked. */
  async refresh(): Promise<void> {
    if (this.#enabled === null) {
      const p = await fetch('/api/projects', { cache: 'no-store', headers: this.#headers() }).catch(() => null);
      if (p === null || !p.ok) return;
      this.#enabled = ((await p.json().catch(() => null)) as { team?: unknown } | null)?.team === true;
    }
    if (!this.#enabled) return;
    let res: Response;
    try {
      res = await fetch('/api/team/sessions', { cache: 'no-store', headers: this.#headers() });
    } catch {
      if (!this.#section.hidden) this.#status.textContent = 'The server cannot be reached.';
      return;
    }
    this.#section.hidden = false;
    if (!res.ok) {
      const body = (await res.json().catch(() => null)) as { error?: { message?: unknown } } | null;
      this.#status.textContent = isText(body?.error?.message) ? body.error.message : `The team store answered HTTP ${res.status}.`;
      return;
    }
    const listed = asSessions(await res.json());
    if (listed === null) return;
    this.#status.textContent = `${listed.store}: ${listed.sessions.length + listed.omitted} session${listed.sessions.length + listed.omitted === 1 ? '' : 's'} from every machine`;
    this.#renderSessions(listed.sessions, listed.machine_id, listed.omitted);
    const a = await fetch('/api/team/approvals', { cache: 'no-store', headers: this.#headers() }).catch(() => null);
    const approvals = a?.ok ? asApprovals(await a.json()) : null;
    this.#renderApprovals(approvals);
  }

  #renderSessions(sessions: TeamSessionRow[], here: string, omitted: number): void {
    const now = Date.now();
    const items = sessions.map((s) =>
      h(
        'li',
        { class: 'team-session', 'data-team-session': s.session_id, 'data-host': s.host },
        h('span', { class: 'record-title' }, `${s.user}@${s.host}`),
        h(
          'span',
          { class: 'meta' },
          h('span', { class: 'record-agent' }, s.agent),
          h('span', { class: `record-status status-${s.status === 'active' ? 'active' : 'ended'}` }, s.status),
          s.started_at === null ? '' : h('span', { class: 'age', title: `started ${s.started_at}${s.ended_at === null ? '' : `, ended ${s.ended_at}`}` }, formatAge(timeMs(s.started_at), now)),
          s.verdict === null ? '' : h('span', { class: verdictClass(s.verdict), 'data-verdict': s.verdict }, s.verdict),
          s.sandboxed ? h('span', { class: 'sandboxed' }, 'sandboxed') : '',
          // Terminals stay on the machine that runs them: a remote session is only its record.
          h('span', { class: 'where' }, s.machine_id === here ? 'this machine' : 'record only'),
        ),
        h('span', { class: 'worktree', title: s.worktree }, s.worktree),
        s.evidence_id === null ? '' : h('a', { class: 'evidence', href: `/api/team/evidence/${encodeURIComponent(s.evidence_id)}`, download: `${s.evidence_id}.evidence.json` }, 'evidence'),
      ),
    );
    if (items.length === 0) items.push(h('li', { class: 'empty' }, 'No session has reached the team store yet.'));
    if (omitted > 0) items.push(h('li', { class: 'empty' }, `…and ${omitted} older`));
    this.#sessions.replaceChildren(...items);
  }

  #renderApprovals(listed: { wired: boolean; pending: TeamApprovalRow[] } | null): void {
    if (listed === null) {
      this.#approvals.replaceChildren(h('li', { class: 'error' }, 'Cannot list the team approvals.'));
      return;
    }
    const items = listed.pending.map((a) =>
      h(
        'li',
        { class: 'team-approval', 'data-approval': a.id, 'data-nonce': a.nonce },
        h('span', { class: 'record-title' }, `${a.tool}: ${a.summary}`),
        h('span', { class: 'meta' }, `${a.user}@${a.host} · session ${a.session_id}`),
        h('button', { type: 'button', 'data-decision': 'allow' }, 'Allow'),
        h('button', { type: 'button', class: 'ghost', 'data-decision': 'deny' }, 'Deny'),
      ),
    );
    if (items.length === 0) items.push(h('li', { class: 'empty' }, 'Nothing waits for a person on any machine.'));
    this.#approvals.replaceChildren(...items);
  }

  async #resolve(id: string, nonce: string, decision: string): Promise<void> {
    const res = await fetch(`/api/team/approvals/${encodeURIComponent(id)}/resolve`, { method: 'POST', headers: this.#headers(true), body: JSON.stringify({ decision, nonce }) }).catch(() => null);
    if (res === null) this.#status.textContent = 'The server cannot be reached; nothing was answered.';
    else if (!res.ok) {
      const body = (await res.json().catch(() => null)) as { error?: { message?: unknown }; winner?: { decided_by?: unknown } | null } | null;
      const winner = isText(body?.winner?.decided_by) ? ` (answered by ${body.winner.decided_by})` : '';
      this.#status.textContent = `${isText(body?.error?.message) ? body.error.message : `HTTP ${res.status}`}${winner}`;
    }
    await this.refresh();
  }
}
