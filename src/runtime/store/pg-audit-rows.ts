// Reading the team audit log: one read-only snapshot, the event rows a page at a time in seq
// order, and the checkpoint rows. Shared by verify (serial and parallel) and export.
import type { PoolClient } from 'pg';
import type { StoredCheckpoint } from '../audit/checkpoints.js';
import { isConnectionError, type PgStore } from './pg-connect.js';

/** Rows per keyset page: a few MB per round trip, small enough to stream a log of any size. */
export const PAGE_ROWS = 10_000;

/** The columns the serial verify checks, in this order (see `Row` there). */
export const ALL_COLUMNS = 'seq, line, hash, machine_id, host, project_key, origin_seq, origin_hash';

/** Runs `fn` in a read-only snapshot, so rows, head and checkpoints are read as of one moment. */
export async function inSnapshot<T>(store: PgStore, fn: (c: PoolClient) => Promise<T>): Promise<T> {
  const c = await store.pool.connect();
  const onError = (): void => {};
  c.on('error', onError);
  let broken: Error | undefined;
  try {
    await c.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    return await fn(c);
  } catch (err) {
    if (isConnectionError(err)) broken = err as Error;
    throw err;
  } finally {
    await c.query('ROLLBACK').catch(() => {});
    c.off('error', onError);
    c.release(broken);
  }
}

/**
 * Every event row in seq order, a page at a time, as arrays of `columns` (the first is `seq`).
 * The next page is asked for before this one is used, so the server reads it meanwhile.
 */
export async function* eventPages<R extends [string, ...unknown[]]>(c: PoolClient, columns: string, pageRows = PAGE_ROWS): AsyncGenerator<R[]> {
  const fetch = (after: string) => c.query<R>({ text: `SELECT ${columns} FROM gh_audit_events WHERE seq > $1 ORDER BY seq LIMIT $2`, values: [after, pageRows], rowMode: 'array' });
  let next: Promise<{ rows: R[] }> | null = fetch('-1');
  try {
    for (;;) {
      const rows: R[] = (await next).rows;
      next = rows.length === pageRows ? fetch(rows.at(-1)![0]) : null;
      yield rows;
      if (next === null) return;
    }
  } finally {
    // Left early: the page asked for ahead is not wanted, and its failure is nobody's.
    next?.catch(() => {});
  }
}

/** How many event rows the table holds, whatever their seq: more than a scan in seq order reads once someone dropped its primary key. */
export async function rowCount(c: PoolClient): Promise<number> {
  const r = await c.query<{ n: string }>(`SELECT count(*) AS n FROM gh_audit_events`);
  return Number(r.rows[0]!.n);
}

/** The checkpoint rows in the order they were written. */
export async function checkpointRows(c: PoolClient): Promise<StoredCheckpoint[]> {
  const r = await c.query<{ tree_size: string; root: string; note: string; key_id: string; time: string }>(`SELECT tree_size, root, note, key_id, time FROM gh_audit_checkpoints ORDER BY id`);
  return r.rows.map((x) => ({ tree_size: Number(x.tree_size), root: x.root, note: x.note, key_id: x.key_id, time: x.time }));
}
