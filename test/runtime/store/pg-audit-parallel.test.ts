// The team verify on worker threads (the built dist/team-verify-worker.js) against a real
// PostgreSQL server: on an intact log its scan is the serial one's, and on every kind of
// tampering it gives up and the report is exactly the serial verify's.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditLog } from '../../../src/runtime/audit/log.js';
import { planFromCheckpoints } from '../../../src/runtime/audit/verify.js';
import { loadOrCreateKey } from '../../../src/runtime/keys.js';
import { startAuditForwardingWith } from '../../../src/runtime/store/pg-audit-forward.js';
import { checkpointRows, inSnapshot } from '../../../src/runtime/store/pg-audit-rows.js';
import { scanRowsParallel } from '../../../src/runtime/store/pg-audit-verify-parallel.js';
import { pageSelect, verifyTeamRange } from '../../../src/runtime/store/pg-audit-range.js';
import { copyPages, PageBuffers, type RowPage } from '../../../src/runtime/store/pg-copy-pages.js';
import { verifyTeamAudit } from '../../../src/runtime/store/pg-audit-verify.js';
import type { PgStore } from '../../../src/runtime/store/pg-connect.js';
import { startPostgresStore, stopPostgresStore, type TestPostgres } from '../../support/postgres.js';
import { gateEvent } from '../audit/helpers.js';
import { contextFor, resetTeamAudit, tempMachine, type TestMachine } from './team-audit-support.js';

const WORKER = resolve('dist/team-verify-worker.js');
// More than two pages of 4,096 rows, from two machines whose chains cross the page boundaries
// (seq 3000-5999 are beta's, with multi-byte characters in every line).
const PER_BATCH = 3_000;
const EVENTS = 3 * PER_BATCH;

let pg: TestPostgres;
let store: PgStore;
let keys: ReturnType<typeof loadOrCreateKey>['publicKey'][];

/** Forwards `PER_BATCH` events from `m`; `unicode` gives their targets characters of two to four UTF-8 bytes. */
async function forward(m: TestMachine, from: number, unicode = false): Promise<void> {
  const log = new AuditLog(join(m.state, 'audit'));
  for (let i = from; i < from + PER_BATCH; i++) {
    const e = gateEvent(i);
    log.append(unicode ? { ...e, data: { ...e.data, targets: [`src/fïlé-€-😀-${i}.ts`] } } : e);
  }
  const part = await startAuditForwardingWith({ tickMs: 60_000, checkpoint: { checkpointEvery: 5_000 } })(contextFor(store, m));
  await part.flush();
  await part.stop();
}

const sql = (text: string) => store.pool.query(text);
const serial = () => verifyTeamAudit(store, keys, { threads: 1 });
const parallel = (threads = 2, workerFile = WORKER) => verifyTeamAudit(store, keys, { threads, workerFile, minRows: 1 });
/** The parallel scan alone: a scan when it could vouch for every row, null when it gave up. */
const parallelScan = () => inSnapshot(store, async (c) => scanRowsParallel(c, planFromCheckpoints({ records: await checkpointRows(c), problems: [], tornBytes: 0 }, keys), 2, WORKER));

beforeAll(async () => {
  ({ pg, store } = await startPostgresStore());
  await resetTeamAudit(store);
  const a = tempMachine('alpha');
  const b = tempMachine('beta');
  await forward(a, 0);
  await forward(b, 0, true);
  await forward(a, PER_BATCH);
  keys = [a, b].map((m) => loadOrCreateKey(m.state).publicKey);
  await sql('CREATE TABLE saved_events AS TABLE gh_audit_events');
}, 120_000);
afterAll(async () => {
  await stopPostgresStore(pg, store);
});

/** Runs `tamper` on the rows, then puts them back as they were. */
async function whileTampered(tamper: string[], check: () => Promise<void>): Promise<void> {
  for (const text of tamper) await sql(text);
  try {
    await check();
  } finally {
    await sql('TRUNCATE gh_audit_events');
    await sql('ALTER TABLE gh_audit_events ALTER COLUMN seq TYPE bigint, ALTER COLUMN line SET NOT NULL, ALTER COLUMN origin_seq SET NOT NULL');
    await sql('INSERT INTO gh_audit_events SELECT * FROM saved_events');
  }
}

describe('team verify on worker threads', { timeout: 60_000 }, () => {
  it('scans an intact log on the workers to what the serial verify finds, on two threads and on three', async () => {
    const scan = await parallelScan();
    const expected = await serial();
    expect(expected).toMatchObject({ ok: true, events: EVENTS, covered: EVENTS });
    expect(scan).not.toBeNull();
    expect(scan!.events).toBe(EVENTS);
    expect(scan!.range.root().toString('hex')).toBe(expected.root);
    expect(await parallel(2)).toEqual(expected);
    expect(await parallel(3)).toEqual(expected);
    // The rows read by several COPY statements, each ending on a page or inside one.
    for (const statementRows of [4096, 5000]) expect(await verifyTeamAudit(store, keys, { threads: 2, workerFile: WORKER, minRows: 1, statementRows })).toEqual(expected);
  });

  // A page's buffer comes back from its worker and takes a later page: longer than that page, and
  // still holding the earlier page's bytes past its end, which the check must never read.
  it('checks a page in a buffer used before, longer than the page, to the same result as in a fresh one', async () => {
    const pages = (buffers: PageBuffers) =>
      inSnapshot(store, async (c) => {
        const out: RowPage[] = [];
        for await (const page of copyPages(c, pageSelect('-1', 4096), 4096, buffers)) out.push(page);
        return out;
      });
    const [fresh] = await pages(new PageBuffers());
    const used = new PageBuffers();
    const dirty = Buffer.allocUnsafeSlow(fresh!.length * 2).fill(0x2c).buffer;
    used.give(dirty);
    const [reused] = await pages(used);
    expect(reused!.bytes).toBe(dirty);
    expect(reused!.length).toBe(fresh!.length);
    const check = (page: RowPage) => {
      const { spare, ...result } = verifyTeamRange({ ...page, first: 0, cuts: [] });
      expect(spare).toBe(page.bytes);
      return result;
    };
    const expected = check(fresh!);
    expect(expected.ok).toBe(true);
    expect(check(reused!)).toEqual(expected);
  });

  it('falls back to the serial verify when its worker cannot run', async () => {
    const broken = join(mkdtempSync(join(tmpdir(), 'gh-worker-')), 'worker.mjs');
    writeFileSync(broken, "throw new Error('this worker does not start');\n");
    expect(await parallel(2, broken)).toEqual(await serial());
  });

  it('gives up on a seq column of another type, whose rows the serial verify then reads', async () => {
    await whileTampered(['ALTER TABLE gh_audit_events ALTER COLUMN seq TYPE numeric'], async () => {
      expect(await parallelScan()).toBeNull();
      const expected = await serial();
      expect(expected).toMatchObject({ ok: true, events: EVENTS });
      expect(await parallel(2)).toEqual(expected);
    });
  });

  describe('with its primary key dropped', () => {
    const ORIGIN_KEY = 'gh_audit_events_machine_id_project_key_origin_seq_key';
    const dropKey = [`ALTER TABLE gh_audit_events DROP CONSTRAINT gh_audit_events_pkey, DROP CONSTRAINT ${ORIGIN_KEY}`, 'ALTER TABLE gh_audit_events ALTER COLUMN seq DROP NOT NULL'];
    const copyOf = (seq: string, of: number) => `INSERT INTO gh_audit_events SELECT ${seq}, line, hash, machine_id, host, project_key, origin_seq, origin_hash FROM gh_audit_events WHERE seq = ${of}`;
    const restoreKey = () => sql(`ALTER TABLE gh_audit_events ADD CONSTRAINT gh_audit_events_pkey PRIMARY KEY (seq), ADD CONSTRAINT ${ORIGIN_KEY} UNIQUE (machine_id, project_key, origin_seq)`);

    it('finds a row inserted with a NULL seq, which no scan in seq order reads', async () => {
      try {
        await whileTampered([...dropKey, copyOf('NULL', 10)], async () => {
          const expected = await serial();
          expect(expected.ok).toBe(false);
          expect(expected.problems.join('\n')).toContain(`the table holds ${EVENTS + 1} rows but ${EVENTS} of them are in seq order`);
          expect(await parallel(2)).toEqual(expected);
        });
      } finally {
        await restoreKey();
      }
    });

    it('finds a seq repeated just past where a keyset page ends, which the next page skips', async () => {
      try {
        await whileTampered([...dropKey, copyOf('4095', 4095)], async () => {
          // Both scans read 4,096 rows a statement or page: the copy of seq 4095 falls between two.
          const atBoundary = await verifyTeamAudit(store, keys, { threads: 1, pageRows: 4096 });
          expect(atBoundary.ok).toBe(false);
          expect(atBoundary.problems.join('\n')).toContain(`the table holds ${EVENTS + 1} rows but ${EVENTS} of them are in seq order`);
          expect(await verifyTeamAudit(store, keys, { threads: 2, workerFile: WORKER, minRows: 1, statementRows: 4096, pageRows: 4096 })).toEqual(atBoundary);
          // With the serial scan's own pages the copy is read, and named where it is.
          const expected = await serial();
          expect(expected.ok).toBe(false);
          expect(await verifyTeamAudit(store, keys, { threads: 2, workerFile: WORKER, minRows: 1, statementRows: 4096 })).toEqual(expected);
        });
      } finally {
        await restoreKey();
      }
    });
  });

  it.each([
    ['an edited line', [`UPDATE gh_audit_events SET line = replace(line, '"src/file-', '"src/filx-') WHERE seq = 6010`]],
    ['a deleted row', ['DELETE FROM gh_audit_events WHERE seq = 5000']],
    [
      'two rows swapped across a page boundary',
      ['UPDATE gh_audit_events SET seq = -1 WHERE seq = 4095', 'UPDATE gh_audit_events SET seq = 4095 WHERE seq = 4096', 'UPDATE gh_audit_events SET seq = 4096 WHERE seq = -1'],
    ],
    ['a host changed in its column only', [`UPDATE gh_audit_events SET host = 'elsewhere' WHERE seq = 7000`]],
    ['a column holding a newline', [`UPDATE gh_audit_events SET host = host || E'\\n' || host WHERE seq = 100`]],
    ['a line holding a newline', [`UPDATE gh_audit_events SET line = line || E'\\n' || line WHERE seq = 8999`]],
    ['a line set to NULL', ['ALTER TABLE gh_audit_events ALTER COLUMN line DROP NOT NULL', 'UPDATE gh_audit_events SET line = NULL WHERE seq = 2000']],
    // NULL must not read as 0: the first event of a machine has origin seq 0.
    ['an origin seq set to NULL', ['ALTER TABLE gh_audit_events ALTER COLUMN origin_seq DROP NOT NULL', 'UPDATE gh_audit_events SET origin_seq = NULL WHERE seq = 0']],
    // Its low 32 bits still name its position.
    ['a seq column 2^32 past its row', ['UPDATE gh_audit_events SET seq = seq + 4294967296 WHERE seq = 8999']],
    ['a renumbered tail', ['UPDATE gh_audit_events SET seq = seq + 100000 WHERE seq >= 8990', 'UPDATE gh_audit_events SET seq = seq - 99999 WHERE seq >= 100000']],
  ])('gives up on %s, and the report is the serial one', async (_name, tamper) => {
    await whileTampered(tamper, async () => {
      expect(await parallelScan()).toBeNull();
      const expected = await serial();
      expect(expected.ok).toBe(false);
      expect(await parallel(2)).toEqual(expected);
    });
  });
});
