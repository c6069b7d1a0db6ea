// The team link: the long-lived Gatehouse process (`run`, `serve`) connects this machine's
// state folders to the team store and hosts the parts that forward them. Hooks never do this.
import { fail, ok, type Result } from '../../core/result.js';
import type { LinkPart, StartPart } from './link-part.js';
import type { Machine } from './machine.js';
import { openStore, type PgStore } from './pg-connect.js';
import { startApprovalRelay } from './pg-approval-relay.js';
import { startAuditForwarding } from './pg-audit-forward.js';
import { startSessionRegistry } from './session-registry.js';
import { storeLabel, type PostgresSpec } from './store-setting.js';

/**
 * The parts every link runs, in start order: the session registry and evidence index, the audit
 * log's forwarding and the approval relay. Adding a part is one line here.
 */
const LINK_PARTS: readonly StartPart[] = [startSessionRegistry, startAuditForwarding, startApprovalRelay];

/** Tries of a part's flush that failed (a connection cut by a restart fails once), and the pause between them. */
const FLUSH_TRIES = 3;
const FLUSH_RETRY_MS = 200;

/** A project the link forwards. */
export interface LinkProject {
  projectState: string;
  projectKey: string;
  worktree: string;
}

/** What to do when the store cannot be opened at start: refuse (null), or run on the file store and keep retrying (`file`). */
export type StoreFallback = 'file' | null;

/** Options of {@link startTeamLink}. */
export interface TeamLinkOptions {
  spec: PostgresSpec;
  projects: readonly LinkProject[];
  /** Where the password variable is read: a copy holding only it (see docs/teams.md "The link"). */
  env: NodeJS.ProcessEnv;
  /** This machine (`thisMachine(process.env)`: the state base names it). */
  machine: Machine;
  warn: (message: string) => void;
  fallback: StoreFallback;
  parts?: readonly StartPart[];
}

/** A running link. */
export interface TeamLink {
  /** The store as shown to people. */
  readonly label: string;
  readonly machine: Machine;
  /** The open store; null while it cannot be reached (started with the file fallback). */
  store(): PgStore | null;
  /**
   * Forwards what is waiting in every part (opening the store first if it is not open yet) and
   * resolves true when it all reached the store within `timeoutMs`; false otherwise, after a warning.
   */
  flush(timeoutMs: number): Promise<boolean>;
  /** Stops every part and closes the store. */
  stop(): Promise<void>;
}

/** The first wait before opening the store again after a failed start; it doubles up to {@link REOPEN_MAX_MS}. */
const REOPEN_FIRST_MS = 1_000;
/** The longest wait between attempts to open a store that was down at start. */
const REOPEN_MAX_MS = 30_000;

class Link implements TeamLink {
  readonly label: string;
  #store: PgStore | null = null;
  #parts: LinkPart[] = [];
  #opening: Promise<Result<void>> | null = null;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #attempts = 0;
  #stopped = false;

  constructor(
    readonly opts: TeamLinkOptions,
    readonly machine: Machine,
  ) {
    this.label = storeLabel(opts.spec);
  }

  store(): PgStore | null {
    return this.#store;
  }

  /** Opens the store and starts the parts; the reason when it cannot. */
  async #open(): Promise<Result<void>> {
    const opened = await openStore(this.opts.spec, { env: this.opts.env });
    if (!opened.ok) return opened;
    if (this.#stopped) {
      await opened.value.close();
      return ok(undefined);
    }
    this.#store = opened.value;
    const parts = this.opts.parts ?? LINK_PARTS;
    for (const project of this.opts.projects) {
      for (const start of parts) {
        const ctx = { store: opened.value, machine: this.machine, ...project, warn: this.opts.warn };
        try {
          this.#parts.push(await start(ctx));
        } catch (err) {
          // A part that cannot start must not take the host (or the other parts) down with it.
          this.opts.warn(`a part of the team link could not start for ${project.worktree}: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
    }
    return ok(undefined);
  }

  /** One attempt to open the store (one at a time), shared by the start, the background retry and flush(). */
  open(): Promise<Result<void>> {
    this.#opening ??= this.#open().then((r) => {
      this.#opening = null;
      if (r.ok && this.#attempts > 0) this.opts.warn(`the team store ${this.label} answers now: the link forwards what this machine spooled meanwhile`);
      this.#attempts = r.ok ? 0 : this.#attempts + 1;
      return r;
    });
    return this.#opening;
  }

  /** Keeps trying to open the store in the background, with backoff. */
  retryInBackground(): void {
    if (this.#stopped || this.#store !== null) return;
    const wait = Math.min(REOPEN_MAX_MS, REOPEN_FIRST_MS * 2 ** Math.min(Math.max(this.#attempts - 1, 0), 16));
    this.#timer = setTimeout(() => {
      this.#timer = null;
      void this.open().then((opened) => {
        if (!opened.ok) this.retryInBackground();
      });
    }, wait);
    this.#timer.unref();
  }

  async flush(timeoutMs: number): Promise<boolean> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    const work = (async (): Promise<boolean> => {
      if (this.#store === null && !(await this.open()).ok) return false;
      // A part may meet a connection the store cut before it came back: a few quick tries, not the whole timeout.
      let left = this.#parts;
      for (let attempt = 0; attempt < FLUSH_TRIES && left.length > 0; attempt++) {
        if (attempt > 0) await new Promise((r) => setTimeout(r, FLUSH_RETRY_MS));
        const results = await Promise.allSettled(left.map((p) => p.flush()));
        left = left.filter((_, i) => results[i]!.status === 'rejected');
      }
      return left.length === 0;
    })();
    try {
      const outcome = await Promise.race([work, timeout]);
      if (outcome === true) return true;
      this.opts.warn(
        `${outcome === 'timeout' ? `the team store ${this.label} did not take this machine's records within ${Math.round(timeoutMs / 1000)} s` : `the team store ${this.label} cannot be reached now`}: they stay in this machine's state folder, and the next link for this project (\`gatehouse serve\`, or the next \`gatehouse run\`) forwards them`,
      );
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
    await this.#opening;
    await Promise.allSettled(this.#parts.map((p) => p.stop()));
    this.#parts = [];
    await this.#store?.close().catch(() => {});
    this.#store = null;
  }
}

/**
 * Opens the team store and starts the link's parts for `projects`. When the store cannot be opened:
 * a failure that names it and what to do, unless `fallback` is `file`: then a warning, a link that
 * keeps retrying in the background, and everything spooled locally is forwarded once it opens.
 * @example const link = await startTeamLink({ spec, projects: [{ projectState, projectKey, worktree }], env, warn, fallback: null })
 */
export async function startTeamLink(opts: TeamLinkOptions): Promise<Result<TeamLink>> {
  const link = new Link(opts, opts.machine);
  const opened = await link.open();
  if (opened.ok) return ok(link);
  if (opts.fallback !== 'file') return fail(opened.reason);
  opts.warn(
    `${opened.reason.replace(/ Start the database.*$/, '')} Running on this machine's file store (--store-fallback file); the link keeps trying, and forwards everything recorded meanwhile once the store answers.`,
  );
  link.retryInBackground();
  return ok(link);
}
