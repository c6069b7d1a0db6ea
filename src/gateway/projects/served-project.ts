// What a server of several projects (`serve --all`) holds for each one, and how a request's
// `?project=<key>` picks it: one contract between the server, the pool and its tests.
import type { ApprovalQueue } from '../../runtime/approvals/index.js';
import type { LinkBook } from '../../runtime/notify/index.js';
import type { Router } from '../router.js';
import type { ProjectEndpoint } from '../ws/endpoint.js';

/** One project as the server serves it: its queue, its routes, its `/ws` endpoint. */
export interface ServedProject {
  /** The state folder's name under `<base>/projects/` (see `projectKey`). */
  key: string;
  /** The worktree's folder name, for people. */
  name: string;
  state: string;
  worktree: string;
  queue: ApprovalQueue;
  /** The project's HTTP routes (approvals, audit status, warm hook calls), reached with `?project=<key>`. */
  router: Router;
  websocket: ProjectEndpoint;
  /** The single-use approval links its notifications issued. */
  links: LinkBook;
  /** Stops its notifier, sweeper, sockets and terminals. */
  close(): Promise<void>;
}

/** Why a request's project could not be served: the status, a stable code and what to do. */
export interface ProjectRefusal {
  status: 400 | 404 | 503;
  code: string;
  message: string;
}

/** The outcome of picking a request's project. */
export type ProjectPick = { ok: true; project: ServedProject } | { ok: false; refusal: ProjectRefusal };

/** One row of `GET /api/projects`. */
export interface ProjectListing {
  key: string;
  name: string;
  worktree: string | null;
  /** Whether any of its sessions is active (started, not ended). */
  active: boolean;
  pending_approvals: number;
  /** Why it is not served (invalid config, worktree gone, …), or null. */
  problem: string | null;
}

/** The projects a server serves: listed, picked by key, closed with the server. */
export interface ProjectSource {
  pick(key: string | null): Promise<ProjectPick>;
  list(): ProjectListing[];
  close(): Promise<void>;
}
