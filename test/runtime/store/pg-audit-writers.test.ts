import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadOrCreateKey } from '../../../src/runtime/keys.js';
import { verifyTeamAudit } from '../../../src/runtime/store/pg-audit-verify.js';
import type { PgStore } from '../../../src/runtime/store/pg-connect.js';
import { startPostgresStore, stopPostgresStore, type TestPostgres } from '../../support/postgres.js';
import { exited } from '../audit/helpers.js';
import { bundleForwardChild, spawnForwarder, tempMachine } from './team-audit-support.js';

let pg: TestPostgres;
let store: PgStore;

beforeAll(async () => {
  ({ pg, store } = await startPostgresStore());
});
afterAll(async () => {
  await stopPostgresStore(pg, store);
});

describe('team audit log: concurrent machines', () => {
  it('8 machine processes × 1,000 events each: 8,000 rows, none lost or duplicated, seq contiguous, verify intact', { timeout: 120_000 }, async () => {
    const script = bundleForwardChild(mkdtempSync(join(tmpdir(), 'gh-team-child-')));
    const machines = Array.from({ length: 8 }, (_, i) => tempMachine(`m${i}`));
    const children = machines.map((m) => spawnForwarder(script, m, 1_000, { GH_TEST_PG_URL: pg.url, GH_TEST_PG_PASSWORD_ENV: pg.passwordEnv }));
    const results = await Promise.all(children.map(exited));
    for (const r of results) expect(r, r.stderr).toMatchObject({ code: 0 });

    const total = await store.pool.query<{ n: string; lo: string; hi: string }>('SELECT count(*) AS n, min(seq) AS lo, max(seq) AS hi FROM gh_audit_events');
    expect(total.rows[0]).toEqual({ n: '8000', lo: '0', hi: '7999' });
    const per = await store.pool.query<{ machine_id: string; n: string; lo: string; hi: string; distinct_seqs: string }>(
      'SELECT machine_id, count(*) AS n, min(origin_seq) AS lo, max(origin_seq) AS hi, count(DISTINCT origin_seq) AS distinct_seqs FROM gh_audit_events GROUP BY machine_id',
    );
    expect(per.rows).toHaveLength(8);
    for (const row of per.rows) expect(row).toMatchObject({ n: '1000', lo: '0', hi: '999', distinct_seqs: '1000' });
    // Each machine's events are in its own order within the one team chain.
    const order = await store.pool.query<{ ok: boolean }>(
      `SELECT bool_and(origin_seq = rn - 1) AS ok FROM (SELECT origin_seq, row_number() OVER (PARTITION BY machine_id ORDER BY seq) AS rn FROM gh_audit_events) t`,
    );
    expect(order.rows[0]!.ok).toBe(true);

    const report = await verifyTeamAudit(
      store,
      machines.map((m) => loadOrCreateKey(m.state).publicKey),
    );
    expect(report).toMatchObject({ ok: true, events: 8000, covered: 8000, problems: [] });
  });
});
