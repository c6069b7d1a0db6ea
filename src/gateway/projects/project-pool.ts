// Every project under the state base, for `serve --all`: found by reading `<base>/projects/`,
// opened when found (at start, on a periodic rescan, or at its first request) and cached.
import { basename } from 'node:path';
import type { Result } from '../../core/result.js';
import { ApprovalQueue } from '../../runtime/approvals/index.js';
import { activeSessionCount, isProjectKey, listProjects, projectEntry, type ProjectEntry } from '../../runtime/project-record.js';
import type { ProjectListing, ProjectPick, ProjectRefusal, ProjectSource, ServedProject } from './served-project.js';

/** How often the state base is read for new projects: a `readdir` and a few small files per project, so cheap; new projects then notify within this. */
const RESCAN_MS = 10_000;

/** A project state folder known to name a worktree. */
export type OpenableProject = ProjectEntry & { worktree: string };

/** What the pool needs: the state base and how to open one project (config, queue, terminals, routes). */
export interface ProjectPoolOptions {
  base: string;
  open: (entry: OpenableProject) => Promise<Result<ServedProject>>;
  log: (line: string) => void;
}

const refuse = (status: ProjectRefusal['status'], code: string, message: string): ProjectPick => ({ ok: false, refusal: { status, code, message } });

/**
 * The projects of one state base. A project whose folder or config is unusable is listed with
 * its problem and not served; it is tried again at the next rescan (a fixed config is picked up).
 * @example const pool = new ProjectPool({ base, open, log }); await pool.rescan()
 */
export class ProjectPool implements ProjectSource {
  readonly #opts: ProjectPoolOptions;
  readonly #open = new Map<string, ServedProject>();
  readonly #opening = new Map<string, Promise<ProjectPick>>();
  /** Why a project found could not be opened (its config, say), by key. */
  readonly #problems = new Map<string, string>();
  #timer: NodeJS.Timeout | null = null;
  #closed = false;

  constructor(opts: ProjectPoolOptions) {
    this.#opts = opts;
  }

  /** Opens every project found that is not open yet; then again every {@link RESCAN_MS}. */
  async start(): Promise<void> {
    await this.rescan();
    this.#timer = setInterval(() => void this.rescan(), RESCAN_MS);
    this.#timer.unref();
  }

  /** Reads the state base and opens what is new. */
  async rescan(): Promise<void> {
    for (const entry of listProjects(this.#opts.base)) {
      if (this.#closed) return;
      if (entry.worktree !== null && entry.problem === null && !this.#open.has(entry.key)) await this.#openOnce({ ...entry, worktree: entry.worktree });
    }
  }

  /** The project a request names with `?project=<key>`; found at once even if it appeared after the last rescan. */
  async pick(key: string | null): Promise<ProjectPick> {
    if (key === null || key === '') return refuse(400, 'project_required', 'this server supervises every project: add ?project=<key> to the request (GET /api/projects lists the keys)');
    if (!isProjectKey(key)) return refuse(400, 'bad_project', 'project must be a project key like app-0123456789abcdef, as GET /api/projects lists them');
    const open = this.#open.get(key);
    if (open !== undefined) return { ok: true, project: open };
    const entry = projectEntry(this.#opts.base, key);
    if (entry === null) return refuse(404, 'no_such_project', `there is no project ${key} in ${this.#opts.base}: GET /api/projects lists the projects served here`);
    if (entry.worktree === null || entry.problem !== null) return refuse(503, 'project_unavailable', `project ${key} is not served: ${entry.problem ?? 'its worktree is unknown'}`);
    return this.#openOnce({ ...entry, worktree: entry.worktree });
  }

  #openOnce(entry: OpenableProject): Promise<ProjectPick> {
    const pending = this.#opening.get(entry.key);
    if (pending !== undefined) return pending;
    const opening = this.#opts
      .open(entry)
      .then(async (r): Promise<ProjectPick> => {
        if (!r.ok) {
          if (this.#problems.get(entry.key) !== r.reason) this.#opts.log(`project ${entry.key} (${entry.worktree}) is not served: ${r.reason}`);
          this.#problems.set(entry.key, r.reason);
          return refuse(503, 'project_unavailable', `project ${entry.key} is not served: ${r.reason}`);
        }
        if (this.#closed) {
          await r.value.close();
          return refuse(503, 'project_unavailable', 'the server is shutting down');
        }
        this.#problems.delete(entry.key);
        this.#open.set(entry.key, r.value);
        return { ok: true, project: r.value };
      })
      .finally(() => this.#opening.delete(entry.key));
    this.#opening.set(entry.key, opening);
    return opening;
  }

  /** The projects served so far (for the single-use links, which name no project). */
  opened(): ServedProject[] {
    return [...this.#open.values()];
  }

  /** Every project under the base, read now, with its counts and problem. */
  list(): ProjectListing[] {
    return listProjects(this.#opts.base).map((e) => {
      const served = this.#open.get(e.key);
      return listingOf(e, served?.queue ?? new ApprovalQueue(e.state), e.problem ?? this.#problems.get(e.key) ?? null);
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer !== null) clearInterval(this.#timer);
    await Promise.allSettled(this.#opening.values());
    await Promise.all([...this.#open.values()].map((p) => p.close()));
    this.#open.clear();
  }
}

/** One row of `GET /api/projects`; a queue that cannot be read counts as empty. */
export function listingOf(e: { key: string; state: string; worktree: string | null }, queue: ApprovalQueue, problem: string | null): ProjectListing {
  let pending = 0;
  try {
    pending = queue.list().length;
  } catch {
    // An unreadable queue is the dashboard's to show when the project is opened.
  }
  return { key: e.key, name: e.worktree === null ? e.key : basename(e.worktree), worktree: e.worktree, active: activeSessionCount(e.state) > 0, pending_approvals: pending, problem };
}
