// The project switcher of a dashboard that `serve --all` serves: lists every project, keeps the
// chosen one in the page's URL (`?project=<key>`, so a reload stays there), hidden for one project.
import { h } from './dom.js';

/** One row of `GET /api/projects`, as far as the switcher reads it. */
interface ProjectRow {
  key: string;
  name: string;
  worktree: string | null;
  active: boolean;
  pending_approvals: number;
  problem: string | null;
}

/** The project this page shows (`?project=` of its URL), or null on a server of one project. */
function currentProject(): string | null {
  return new URLSearchParams(location.search).get('project');
}

/** `path` on this server, carrying the page's project (the `/ws` URL and the API's requests). */
export function withProject(path: string): string {
  const u = new URL(path, location.href);
  const key = currentProject();
  if (key !== null) u.searchParams.set('project', key);
  return u.href;
}

function asRows(v: unknown): { multi: boolean; projects: ProjectRow[] } | null {
  if (typeof v !== 'object' || v === null) return null;
  const { multi, projects } = v as { multi?: unknown; projects?: unknown };
  if (typeof multi !== 'boolean' || !Array.isArray(projects)) return null;
  const rows = projects.filter((p): p is ProjectRow => typeof p === 'object' && p !== null && typeof (p as ProjectRow).key === 'string' && typeof (p as ProjectRow).name === 'string');
  return { multi, projects: rows };
}

/** What an option says: the name, what waits there, and why it is not served. */
function label(p: ProjectRow): string {
  const waiting = p.pending_approvals > 0 ? ` · ${p.pending_approvals} waiting` : '';
  const active = p.active ? ' · active' : '';
  return p.problem === null ? `${p.name}${active}${waiting}` : `${p.name} · not served`;
}

/**
 * Fills `select` from `GET /api/projects`; changing it loads the page for that project.
 * @example new ProjectSwitcher(byId('project', HTMLSelectElement), () => rpc.token).load()
 */
export class ProjectSwitcher {
  readonly #select: HTMLSelectElement;
  readonly #token: () => string | null;

  constructor(select: HTMLSelectElement, token: () => string | null) {
    this.#select = select;
    this.#token = token;
    select.addEventListener('change', () => {
      const u = new URL('/', location.href);
      u.searchParams.set('project', select.value);
      location.assign(u.href);
    });
  }

  /** Lists the projects; on a server of several, a page without a (known) project goes to the first served one. */
  async load(): Promise<void> {
    const token = this.#token();
    let listed: { multi: boolean; projects: ProjectRow[] } | null = null;
    try {
      const res = await fetch('/api/projects', { cache: 'no-store', headers: token === null ? {} : { authorization: `Bearer ${token}` } });
      if (res.ok) listed = asRows(await res.json());
    } catch {
      listed = null;
    }
    if (listed === null || !listed.multi) {
      this.#select.hidden = true;
      return;
    }
    const key = currentProject();
    const served = listed.projects.filter((p) => p.problem === null);
    if ((key === null || !served.some((p) => p.key === key)) && served[0] !== undefined) {
      const u = new URL(location.href);
      u.searchParams.set('project', served[0].key);
      location.replace(u.href);
      return;
    }
    this.#select.replaceChildren(
      ...listed.projects.map((p) => h('option', { value: p.key, selected: p.key === key, disabled: p.problem !== null, title: p.problem ?? p.worktree ?? p.key }, label(p))),
    );
    this.#select.hidden = false;
  }
}
