// The link part that keeps the team's session registry and evidence index: every session
// folder and sealed bundle of this project, read from the local files, written idempotently.
import { readdirSync } from 'node:fs';
import type { Pool } from 'pg';
import { EVIDENCE_ID_RE, bundleDir } from '../evidence/seal.js';
import { evidenceItem, putEvidence } from './evidence-rows.js';
import { ForwardLoop } from './forward-loop.js';
import type { LinkContext, LinkPart, StartPart } from './link-part.js';
import { inTransaction, isConnectionError } from './pg-connect.js';
import { sessionRows, type SessionRow } from './session-rows.js';

/**
 * How often the project's folders are read again. Sessions change at start, at each verdict and at
 * the end; `gatehouse run` flushes at its end, so the poll only matters for sessions run beside it.
 */
const POLL_MS = 2_000;

const COLUMNS = [
  'machine_id',
  'host',
  'os_user',
  'project_key',
  'session_id',
  'agent',
  'worktree',
  'status',
  'started_at',
  'ended_at',
  'verdict',
  'verdict_summary',
  'evidence_id',
  'sandboxed',
] as const;
const UPDATED = COLUMNS.slice(5);

/** Inserts a session row, or updates it when any field changed (the key never does). */
const UPSERT_SESSION = `INSERT INTO gh_sessions (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})
  ON CONFLICT (machine_id, project_key, session_id) DO UPDATE SET ${[...UPDATED, 'host', 'os_user'].map((c) => `${c} = EXCLUDED.${c}`).join(', ')}, updated_at = now()
  WHERE (${UPDATED.map((c) => `gh_sessions.${c}`).join(', ')}) IS DISTINCT FROM (${UPDATED.map((c) => `EXCLUDED.${c}`).join(', ')})`;

/** Ids of the bundles in the project's evidence folder. */
function localBundleIds(projectState: string): string[] {
  try {
    return readdirSync(bundleDir(projectState))
      .filter((n) => n.endsWith('.json'))
      .map((n) => n.slice(0, -'.json'.length))
      .filter((id) => EVIDENCE_ID_RE.test(id))
      .sort();
  } catch {
    return [];
  }
}

/** One project's registry state: what this process knows the store already holds. */
class Registry {
  /** The last row written per session id. */
  readonly #sent = new Map<string, string>();
  /** Bundles the store holds (primed from the store once, so a restart does not resend every blob). */
  #evidence: Set<string> | null = null;
  /** Items that failed for a reason other than the connection: warned once each, retried every pass. */
  readonly #warned = new Set<string>();

  constructor(readonly ctx: LinkContext) {}

  async pass(): Promise<void> {
    const { ctx } = this;
    const pool = ctx.store.pool;
    for (const row of sessionRows(ctx.projectState, ctx.machine, ctx.projectKey)) {
      const key = JSON.stringify(row);
      if (this.#sent.get(row.session_id) === key) continue;
      // Only a row the store took is remembered; one it refused is tried again next pass.
      if (await this.#item(`session ${row.session_id}`, () => upsertSession(pool, row))) this.#sent.set(row.session_id, key);
    }
    this.#evidence ??= await storedBundles(pool, ctx);
    const have = this.#evidence;
    for (const id of localBundleIds(ctx.projectState)) {
      if (have.has(id)) continue;
      const item = evidenceItem(ctx.projectState, id);
      if (!item.ok) {
        this.#warnOnce(id, `evidence ${id} is not forwarded: ${item.reason}`);
        continue;
      }
      for (const p of item.value.problems) this.#warnOnce(`${id} ${p}`, `evidence ${id} is forwarded without a blob: ${p}`);
      if (await this.#item(`evidence ${id}`, () => inTransaction(pool, (c) => putEvidence(c, item.value, ctx.machine, ctx.projectKey)))) have.add(id);
    }
  }

  /** Runs one write; a connection error ends the pass (rethrown), any other is warned once and the item retried next pass. */
  async #item(what: string, write: () => Promise<unknown>): Promise<boolean> {
    try {
      await write();
      return true;
    } catch (err) {
      if (isConnectionError(err)) throw err;
      this.#warnOnce(what, `${what} could not be written to ${this.ctx.store.label}: ${err instanceof Error ? err.message : String(err)}`);
      return false;
    }
  }

  #warnOnce(key: string, message: string): void {
    if (this.#warned.has(key)) return;
    this.#warned.add(key);
    this.ctx.warn(message);
  }
}

async function upsertSession(pool: Pool, row: SessionRow): Promise<void> {
  await pool.query(
    UPSERT_SESSION,
    COLUMNS.map((c) => row[c]),
  );
}

async function storedBundles(pool: Pool, ctx: LinkContext): Promise<Set<string>> {
  const r = await pool.query<{ id: string }>('SELECT id FROM gh_evidence WHERE machine_id = $1 AND project_key = $2', [ctx.machine.id, ctx.projectKey]);
  return new Set(r.rows.map((x) => x.id));
}

/**
 * Starts forwarding this project's sessions and evidence: a first pass at once, then every
 * {@link POLL_MS}, backing off while the store is down.
 * @example const part = await startSessionRegistry(ctx); await part.flush(); await part.stop()
 */
export const startSessionRegistry: StartPart = (ctx: LinkContext): Promise<LinkPart> => {
  const registry = new Registry(ctx);
  const loop = new ForwardLoop({ pass: () => registry.pass(), warn: ctx.warn, what: 'sessions and evidence', label: ctx.store.label, pollMs: POLL_MS });
  loop.start();
  return Promise.resolve({ flush: () => loop.flush(), stop: () => loop.stop() });
};
