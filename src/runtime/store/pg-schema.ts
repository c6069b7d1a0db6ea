// The team store's tables, created or brought up to date when a store is opened. Every
// statement is idempotent, and the whole migration runs under one advisory lock, so two
// machines opening a new database at once do not race.
import type { Pool } from 'pg';
import { AUDIT_DDL } from './pg-audit-schema.js';
import { REGISTRY_DDL } from './registry-schema.js';
import { APPROVAL_TABLES } from './pg-approval-schema.js';

/** The advisory lock key of migrations (any fixed 64-bit number, "gatehouse" in ASCII). */
const MIGRATION_LOCK = '7449355384622052709';

/** The schema version this build writes; a newer database is refused rather than misread. */
export const SCHEMA_VERSION = 1;

/**
 * Statements per part of the store. Each part owns its tables; every statement must be
 * safe to run again (`CREATE … IF NOT EXISTS`).
 */
const PARTS: readonly (readonly string[])[] = [
  [
    `CREATE TABLE IF NOT EXISTS gh_meta (
       key text PRIMARY KEY,
       value text NOT NULL
     )`,
  ],
  AUDIT_DDL,
  REGISTRY_DDL,
  APPROVAL_TABLES,
];

/** Creates what is missing; refuses a database written by a newer Gatehouse. */
export async function migrate(pool: Pool): Promise<void> {
  const c = await pool.connect();
  try {
    await c.query('BEGIN');
    await c.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    for (const part of PARTS) for (const sql of part) await c.query(sql);
    const row = await c.query<{ value: string }>(`SELECT value FROM gh_meta WHERE key = 'schema_version'`);
    const found = row.rows[0] === undefined ? null : Number(row.rows[0].value);
    if (found !== null && found > SCHEMA_VERSION) {
      throw new Error(`the database holds schema version ${found}, newer than this Gatehouse's ${SCHEMA_VERSION}; upgrade Gatehouse on this machine`);
    }
    await c.query(`INSERT INTO gh_meta (key, value) VALUES ('schema_version', $1) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`, [String(SCHEMA_VERSION)]);
    await c.query('COMMIT');
  } catch (err) {
    await c.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    c.release();
  }
}
