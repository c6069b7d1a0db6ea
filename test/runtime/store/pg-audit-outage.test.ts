import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AuditLog } from '../../../src/runtime/audit/log.js';
import { loadOrCreateKey } from '../../../src/runtime/keys.js';
import { startAuditForwardingWith } from '../../../src/runtime/store/pg-audit-forward.js';
import { verifyTeamAudit } from '../../../src/runtime/store/pg-audit-verify.js';
import type { PgStore } from '../../../src/runtime/store/pg-connect.js';
import { startPostgresStore, stopPostgresStore, type TestPostgres } from '../../support/postgres.js';
import { exited, gateEvent } from '../audit/helpers.js';
import { bundleForwardChild, contextFor, resetTeamAudit, spawnForwarder, tempMachine } from './team-audit-support.js';

let pg: TestPostgres;
let store: PgStore;

beforeAll(async () => {
  ({ pg, store } = await startPostgresStore());
});
afterAll(async () => {
  await stopPostgresStore(pg, store);
});
beforeEach(() => resetTeamAudit(store));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function originSeqs(): Promise<number[]> {
  const r = await store.pool.query<{ origin_seq: string }>('SELECT origin_seq FROM gh_audit_events ORDER BY seq');
  return r.rows.map((x) => Number(x.origin_seq));
}

/** flush() until it resolves: the pool reconnects on the first query after a restart. */
async function flushOnceBack(part: { flush(): Promise<void> }): Promise<void> {
  for (let i = 0; ; i++) {
    try {
      return await part.flush();
    } catch (err) {
      if (i >= 50) throw err;
      await sleep(100);
    }
  }
}

describe('team audit log: the database goes away', () => {
  it('keeps events in the local log while the server is down and forwards them all, in order, once it is back', { timeout: 60_000 }, async () => {
    const m = tempMachine('alpha');
    const log = new AuditLog(join(m.state, 'audit'));
    const warnings: string[] = [];
    const part = await startAuditForwardingWith({ tickMs: 20 })(contextFor(store, m, warnings));
    try {
      for (let i = 0; i < 100; i++) log.append(gateEvent(i));
      await part.flush();
      expect(await originSeqs()).toHaveLength(100);

      pg.kill();
      for (let i = 100; i < 200; i++) {
        log.append(gateEvent(i));
        if (i % 20 === 0) await sleep(10);
      }
      await expect(part.flush()).rejects.toThrow();
      // The link's own timer kept trying and said once that the store is down.
      await sleep(100);
      expect(warnings.filter((w) => /cannot be reached/.test(w))).toHaveLength(1);

      pg.start();
      for (let i = 200; i < 300; i++) log.append(gateEvent(i));
      await flushOnceBack(part);
    } finally {
      await part.stop();
    }
    expect(await originSeqs()).toEqual([...Array(300).keys()]);
    expect(await verifyTeamAudit(store, [loadOrCreateKey(m.state).publicKey])).toMatchObject({ ok: true, events: 300, covered: 300 });
  });

  it('a link process killed mid-forward and started again writes every event once', { timeout: 60_000 }, async () => {
    const script = bundleForwardChild(mkdtempSync(join(tmpdir(), 'gh-team-child-')));
    const m = tempMachine('alpha');
    const env = { GH_TEST_PG_URL: pg.url, GH_TEST_PG_PASSWORD_ENV: pg.passwordEnv };
    const first = spawnForwarder(script, m, 100_000, env);
    const done = exited(first);
    while ((await originSeqs()).length < 300) await sleep(20);
    first.kill('SIGKILL');
    expect((await done).signal).toBe('SIGKILL');
    const second = await exited(spawnForwarder(script, m, 200, env));
    expect(second, second.stderr).toMatchObject({ code: 0 });
    const local = [...new AuditLog(join(m.state, 'audit')).events()].length;
    expect(local).toBeGreaterThan(500);
    expect(await originSeqs()).toEqual([...Array(local).keys()]);
    const r = await verifyTeamAudit(store, [loadOrCreateKey(m.state).publicKey]);
    expect(r).toMatchObject({ ok: true, events: local, covered: local });
  });
});
