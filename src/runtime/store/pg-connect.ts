// Connections to the team's PostgreSQL store. The driver is imported only here, on first
// use, so nothing on the hook path ever loads it. The password comes from the variable the
// setting names, else from PGPASSWORD or a pgpass file (the driver reads those itself).
import type { Pool, PoolClient } from 'pg';
import { fail, ok, type Result } from '../../core/result.js';
import { storeLabel, type PostgresSpec } from './store-setting.js';
import { migrate } from './pg-schema.js';

/** How long one connection attempt may take: a store that does not answer in this time is down. */
const CONNECT_TIMEOUT_MS = 3_000;

/** Options of {@link openStore}. */
export interface OpenOptions {
  env?: NodeJS.ProcessEnv;
  /** Connections kept open (default 4). */
  max?: number;
  /** Create missing tables (default true); false only checks that the database answers, for read-only users (audit verify, export). */
  migrate?: boolean;
}

/** An open store: the pool, its label for messages, and a way to close it. */
export interface PgStore {
  pool: Pool;
  label: string;
  close(): Promise<void>;
}

/**
 * Connects, checks that the database answers, and brings its tables up to this version's
 * schema. A failure says what is wrong and what to do next.
 */
export async function openStore(spec: PostgresSpec, opts: OpenOptions = {}): Promise<Result<PgStore>> {
  const env = opts.env ?? process.env;
  const label = storeLabel(spec);
  let password: string | undefined;
  if (spec.passwordEnv !== null) {
    password = env[spec.passwordEnv];
    if (password === undefined || password === '') return fail(`The team store ${label} takes its password from $${spec.passwordEnv}, which is not set; set it, or use a pgpass file instead.`);
  }
  // The driver reads PGPASSWORD from this process itself. A store named by a project's config must
  // not get it (a secret meant for another database, sent to a host the config names): it is
  // taken out of the environment, and the driver falls back to the pgpass file, which matches the host.
  if (spec.fromProject === true && spec.passwordEnv === null) delete process.env['PGPASSWORD'];
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({
    connectionString: withPassword(spec.url, password),
    max: opts.max ?? 4,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    application_name: 'gatehouse',
  });
  // An idle connection cut by a restart must not crash the process: the next query reconnects.
  pool.on('error', () => {});
  try {
    if (opts.migrate === false) await pool.query('SELECT 1');
    else await migrate(pool);
  } catch (err) {
    await pool.end().catch(() => {});
    return fail(unreachable(label, err));
  }
  return ok({ pool, label, close: () => pool.end() });
}

/**
 * The URL the driver connects with, in memory only: the driver lets the URL's fields win over
 * separate options, so a password given beside a URL without one would be dropped.
 */
function withPassword(url: string, password: string | undefined): string {
  if (password === undefined) return url;
  const u = new URL(url);
  u.password = encodeURIComponent(password);
  return u.toString();
}

/** Runs `fn` in one transaction: committed when it returns, rolled back when it throws. */
export async function inTransaction<T>(pool: Pool, fn: (c: PoolClient) => Promise<T>): Promise<T> {
  const c = await pool.connect();
  // A connection cut while this client is checked out is reported on the client too (the pool
  // listens only on idle ones); unheard, it would crash the process. The query in flight fails anyway.
  const onError = (): void => {};
  c.on('error', onError);
  let broken: Error | undefined;
  try {
    await c.query('BEGIN');
    const out = await fn(c);
    await c.query('COMMIT');
    return out;
  } catch (err) {
    // A connection that failed is dropped, not handed to the next caller.
    if (isConnectionError(err)) broken = err as Error;
    await c.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    c.off('error', onError);
    c.release(broken);
  }
}

/** The message for a store that cannot be used: what failed, and what to do. */
function unreachable(label: string, err: unknown): string {
  const e = err as { code?: string; message?: string };
  const why = e.code === '28P01' ? 'the password was refused' : e.code === '3D000' ? 'the database does not exist' : (e.message ?? String(err));
  return `Cannot use the team store ${label} (${why}). Start the database or fix the setting; to run on this machine's own store instead, pass --store-fallback file.`;
}

/** Whether an error means the database cannot be reached now (down, restarting, network), not a bug. */
export function isConnectionError(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  if (e.code !== undefined && /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|ENOTFOUND|EHOSTUNREACH|57P01|57P02|57P03|08\w{3})$/.test(e.code)) return true;
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(e.message ?? '');
}
