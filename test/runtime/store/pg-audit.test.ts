import { readFileSync, readdirSync, writeFileSync, mkdtempSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AuditLog } from '../../../src/runtime/audit/log.js';
import { sealEvent, type AuditEvent } from '../../../src/runtime/audit/record.js';
import { verifyAudit } from '../../../src/runtime/audit/verify.js';
import { loadOrCreateKey } from '../../../src/runtime/keys.js';
import { exportTeamAudit } from '../../../src/runtime/store/pg-audit-export.js';
import { startAuditForwardingWith } from '../../../src/runtime/store/pg-audit-forward.js';
import { verifyTeamAudit } from '../../../src/runtime/store/pg-audit-verify.js';
import type { PgStore } from '../../../src/runtime/store/pg-connect.js';
import { gatehouse } from '../../support/cli.js';
import { startPostgresStore, stopPostgresStore, type TestPostgres } from '../../support/postgres.js';
import { gateEvent } from '../audit/helpers.js';
import { contextFor, resetTeamAudit, tempMachine, type TestMachine } from './team-audit-support.js';

let pg: TestPostgres;
let store: PgStore;

beforeAll(async () => {
  ({ pg, store } = await startPostgresStore());
});
afterAll(async () => {
  await stopPostgresStore(pg, store);
});
beforeEach(() => resetTeamAudit(store));

/** Appends `n` events to the machine's local log, as hooks do. */
function appendLocal(m: TestMachine, n: number, from = 0): void {
  const log = new AuditLog(join(m.state, 'audit'));
  for (let i = from; i < from + n; i++) log.append(gateEvent(i));
}

/** Forwards everything the machine's local log holds now, with a checkpoint every `every` events. */
async function forward(m: TestMachine, every = 1_000, warnings: string[] = []): Promise<void> {
  const part = await startAuditForwardingWith({ tickMs: 60_000, checkpoint: { checkpointEvery: every } })(contextFor(store, m, warnings));
  try {
    await part.flush();
  } finally {
    await part.stop();
  }
}

const keyOf = (m: TestMachine) => loadOrCreateKey(m.state).publicKey;

async function rows(): Promise<{ seq: string; line: string; machine_id: string; origin_seq: string }[]> {
  return (await store.pool.query('SELECT seq, line, machine_id, origin_seq FROM gh_audit_events ORDER BY seq')).rows;
}

describe('team audit log: append and verify', () => {
  it('forwards a local log into the team log as file-format events whose origin names the machine, and verifies it', async () => {
    const a = tempMachine('alpha');
    appendLocal(a, 30);
    await forward(a);
    const r = await verifyTeamAudit(store, [keyOf(a)]);
    expect(r).toMatchObject({ ok: true, events: 30, size: 30, covered: 30, problems: [] });
    expect(r.checkpoints).toBeGreaterThanOrEqual(1);
    const local = [...new AuditLog(join(a.state, 'audit')).events()];
    const team = (await rows()).map((x) => JSON.parse(x.line) as AuditEvent);
    expect(team.map((e) => e.seq)).toEqual([...Array(30).keys()]);
    team.forEach((e, i) => {
      expect(e.origin).toMatchObject({ machine: contextFor(store, a).machine.id, project: a.project, seq: i, event_hash: local[i]!.hash, prev_hash: local[i]!.prev_hash });
      expect({ type: e.type, actor: e.actor, session_id: e.session_id, data: e.data, time: e.time }).toEqual({
        type: local[i]!.type,
        actor: local[i]!.actor,
        session_id: local[i]!.session_id,
        data: local[i]!.data,
        time: local[i]!.time,
      });
    });
  });

  it('a file store event carries no origin: its line is what it always was', () => {
    const { line } = sealEvent(gateEvent(1), 0, '0'.repeat(64), () => new Date('2025-01-01T00:00:00.000Z'));
    expect(line).not.toContain('origin');
    expect(Object.keys(JSON.parse(line) as object)).toEqual(['actor', 'data', 'hash', 'prev_hash', 'seq', 'session_id', 'time', 'type']);
  });

  it('a restarted link forwards only what is new, and two machines share one chain', async () => {
    const a = tempMachine('alpha');
    const b = tempMachine('beta');
    appendLocal(a, 10);
    await forward(a);
    await forward(a);
    appendLocal(b, 5);
    appendLocal(a, 5, 10);
    await forward(b);
    await forward(a);
    const all = await rows();
    expect(all).toHaveLength(20);
    const ma = contextFor(store, a).machine.id;
    expect(all.filter((x) => x.machine_id === ma).map((x) => Number(x.origin_seq))).toEqual([...Array(15).keys()]);
    expect(await verifyTeamAudit(store, [keyOf(a), keyOf(b)])).toMatchObject({ ok: true, events: 20, covered: 20 });
  });

  it('checkpoints signed by a machine whose key the operator did not give are reported', async () => {
    const a = tempMachine('alpha');
    const b = tempMachine('beta');
    appendLocal(a, 3);
    await forward(a);
    appendLocal(b, 3);
    await forward(b);
    const r = await verifyTeamAudit(store, [keyOf(a)]);
    expect(r.ok).toBe(false);
    expect(r.problems.join('\n')).toMatch(/which is not a trusted key/);
  });
});

describe('team audit log: tampering with the rows by SQL', () => {
  let a: TestMachine;
  let b: TestMachine;
  let keys: ReturnType<typeof keyOf>[];

  beforeEach(async () => {
    a = tempMachine('alpha');
    b = tempMachine('beta');
    keys = [keyOf(a), keyOf(b)];
    // 80 events, interleaved in batches, with a checkpoint every 16 events.
    for (let round = 0; round < 4; round++) {
      appendLocal(a, 10, round * 10);
      await forward(a, 16);
      appendLocal(b, 10, round * 10);
      await forward(b, 16);
    }
    expect(await verifyTeamAudit(store, keys)).toMatchObject({ ok: true, events: 80, covered: 80 });
  });

  const sql = (text: string, values: unknown[] = []) => store.pool.query(text, values);

  it('reports an edited event', async () => {
    await sql(`UPDATE gh_audit_events SET line = replace(line, 'src/file-3.ts', 'src/file-x.ts') WHERE seq = 3`);
    const r = await verifyTeamAudit(store, keys);
    expect(r.ok).toBe(false);
    expect(r.first_bad).toMatchObject({ seq: 3 });
    expect(r.first_bad?.reason).toMatch(/hash does not match its content/);
  });

  it('reports a deleted event', async () => {
    await sql(`DELETE FROM gh_audit_events WHERE seq = 41`);
    const r = await verifyTeamAudit(store, keys);
    expect(r.ok).toBe(false);
    expect(r.first_bad).toMatchObject({ seq: 41 });
    expect(r.problems.join('\n')).toMatch(/seq 42 follows seq 40/);
  });

  it('reports two events whose seqs were swapped', async () => {
    await sql(`UPDATE gh_audit_events SET seq = -1 WHERE seq = 20`);
    await sql(`UPDATE gh_audit_events SET seq = 20 WHERE seq = 21`);
    await sql(`UPDATE gh_audit_events SET seq = 21 WHERE seq = -1`);
    const r = await verifyTeamAudit(store, keys);
    expect(r.ok).toBe(false);
    expect(r.first_bad).toMatchObject({ seq: 20 });
    expect(r.first_bad?.reason).toMatch(/seq 21 follows seq 19/);
  });

  it('reports an origin changed in the columns, and one changed in the sealed line', async () => {
    await sql(`UPDATE gh_audit_events SET machine_id = 'm-ffffffffffffffff' WHERE seq = 12`);
    let r = await verifyTeamAudit(store, keys);
    expect(r.first_bad).toMatchObject({ seq: 12 });
    expect(r.first_bad?.reason).toMatch(/re-attributed/);
    await sql(`UPDATE gh_audit_events SET machine_id = $1 WHERE seq = 12`, [JSON.parse((await rows())[12]!.line).origin.machine]);
    await sql(`UPDATE gh_audit_events SET line = replace(line, '"host":"', '"host":"x') WHERE seq = 12`);
    r = await verifyTeamAudit(store, keys);
    expect(r.first_bad).toMatchObject({ seq: 12 });
    expect(r.first_bad?.reason).toMatch(/hash does not match/);
  });

  it('reports a forged row inserted at the end without the append, even with a well-formed chain', async () => {
    const last = JSON.parse((await rows())[79]!.line) as AuditEvent;
    const o = last.origin!;
    const { line, event } = sealEvent({ ...gateEvent(999), origin: { ...o, seq: o.seq + 1, prev_hash: o.event_hash, event_hash: 'a'.repeat(64) } }, 80, last.hash);
    await sql(`INSERT INTO gh_audit_events (seq, line, hash, machine_id, host, project_key, origin_seq, origin_hash) VALUES (80, $1, $2, $3, $4, $5, $6, $7)`, [
      line,
      event.hash,
      o.machine,
      o.host,
      o.project,
      o.seq + 1,
      'a'.repeat(64),
    ]);
    const r = await verifyTeamAudit(store, keys);
    expect(r.ok).toBe(false);
    expect(r.first_bad).toMatchObject({ seq: 80 });
    expect(r.problems.join('\n')).toMatch(/origin.event_hash is not the hash of the local event/);
    expect(r.problems.join('\n')).toMatch(/the head row records 80 events but the table holds 81 rows/);
  });

  it('cannot see a well-formed event appended past the newest checkpoint with the head rewritten, and says it is uncovered', async () => {
    const last = JSON.parse((await rows())[79]!.line) as AuditEvent;
    const o = last.origin!;
    const local = sealEvent({ ...gateEvent(700), time: '2025-01-01T00:00:00.000Z' }, o.seq + 1, o.event_hash);
    const { line, event } = sealEvent({ ...gateEvent(700), time: '2025-01-01T00:00:00.000Z', origin: { ...o, seq: o.seq + 1, prev_hash: o.event_hash, event_hash: local.event.hash } }, 80, last.hash);
    await sql(`INSERT INTO gh_audit_events (seq, line, hash, machine_id, host, project_key, origin_seq, origin_hash) VALUES (80, $1, $2, $3, $4, $5, $6, $7)`, [
      line,
      event.hash,
      o.machine,
      o.host,
      o.project,
      o.seq + 1,
      local.event.hash,
    ]);
    const { CompactRange } = await import('../../../src/core/crypto/merkle.js');
    const range = new CompactRange();
    for (const r of await rows()) range.pushData(r.line);
    await sql(`UPDATE gh_audit_head SET size = 81, last_hash = $1, frontier = $2`, [event.hash, Buffer.concat(range.frontier())]);
    // The documented limit: past the newest checkpoint only the hash chain holds, and anyone can recompute it.
    expect(await verifyTeamAudit(store, keys)).toMatchObject({ ok: true, events: 81, covered: 80 });
  });

  it('reports a tail cut below a checkpoint, even when the head row is rewound to match', async () => {
    const kept = (await rows())[59]!;
    await sql(`DELETE FROM gh_audit_events WHERE seq >= 60`);
    await sql(`UPDATE gh_audit_head SET size = 60, last_hash = $1`, [JSON.parse(kept.line).hash]);
    const r = await verifyTeamAudit(store, keys);
    expect(r.ok).toBe(false);
    expect(r.first_bad).toMatchObject({ seq: 60 });
    expect(r.problems.join('\n')).toMatch(/the log has 60 events but checkpoint #\d+ \(tree size \d+\).* were removed from its end/);
  });

  it('a forged event attributed to a machine makes that machine stop forwarding and say so', async () => {
    const last = JSON.parse((await rows())[79]!.line) as AuditEvent;
    const o = last.origin!;
    const fakeLocal = sealEvent({ ...gateEvent(500), time: '2025-01-01T00:00:00.000Z' }, o.seq + 1, o.event_hash);
    const { line, event } = sealEvent(
      { ...gateEvent(500), time: '2025-01-01T00:00:00.000Z', origin: { ...o, seq: o.seq + 1, prev_hash: o.event_hash, event_hash: fakeLocal.event.hash } },
      80,
      last.hash,
    );
    await sql(`INSERT INTO gh_audit_events (seq, line, hash, machine_id, host, project_key, origin_seq, origin_hash) VALUES (80, $1, $2, $3, $4, $5, $6, $7)`, [
      line,
      event.hash,
      o.machine,
      o.host,
      o.project,
      o.seq + 1,
      fakeLocal.event.hash,
    ]);
    const owner = o.machine === contextFor(store, a).machine.id ? a : b;
    appendLocal(owner, 1, 40);
    const warnings: string[] = [];
    await forward(owner, 16, warnings);
    expect(warnings.join('\n')).toMatch(/stopped forwarding .* at local seq 40: local event seq 40 is not the one forwarded/);
    const r = await verifyTeamAudit(store, keys);
    expect(r.ok).toBe(false);
    expect(r.problems.join('\n')).toMatch(/stopped forwarding project .* at its local seq 40/);
  });
});

describe('team audit log: what a machine forwards', () => {
  it('a restarted link goes straight past what the store holds: an old local line rewritten after it was forwarded does not stop the new ones', async () => {
    const a = tempMachine('alpha');
    appendLocal(a, 10);
    await forward(a);
    const file = join(a.state, 'audit', 'log.jsonl');
    const lines = readFileSync(file, 'utf8').split('\n');
    expect(lines[2]).toContain('src/file-2.ts');
    lines[2] = lines[2]!.replace('src/file-2.ts', 'src/file-9.ts');
    writeFileSync(file, lines.join('\n'));
    appendLocal(a, 5, 10);
    const warnings: string[] = [];
    await forward(a, 1_000, warnings);
    expect((await rows()).map((x) => Number(x.origin_seq))).toEqual([...Array(15).keys()]);
    expect(warnings).toEqual([]);
    // The team log keeps the line as it was forwarded.
    expect(await verifyTeamAudit(store, [keyOf(a)])).toMatchObject({ ok: true, events: 15 });
  });

  it('does not believe a log index that points elsewhere: it reads up to what the store holds and forwards each event once', async () => {
    const a = tempMachine('alpha');
    appendLocal(a, 10);
    await forward(a);
    appendLocal(a, 5, 10);
    // The index (agent-writable without a sandbox) says event 9 ends where event 5 does.
    const ends = join(a.state, 'audit', 'merkle', 'ends.bin');
    const buf = readFileSync(ends);
    buf.copy(buf, 9 * 8, 5 * 8, 6 * 8);
    writeFileSync(ends, buf);
    await forward(a);
    expect((await rows()).map((x) => Number(x.origin_seq))).toEqual([...Array(15).keys()]);
    expect(await verifyTeamAudit(store, [keyOf(a)])).toMatchObject({ ok: true, events: 15 });
  });

  it('stops before a tampered local line, warns, and records where it stopped', async () => {
    const a = tempMachine('alpha');
    appendLocal(a, 10);
    const file = join(a.state, 'audit', 'log.jsonl');
    const lines = readFileSync(file, 'utf8').split('\n');
    lines[6] = lines[6]!.replace('src/file-6.ts', 'src/file-X.ts');
    writeFileSync(file, lines.join('\n'));
    const warnings: string[] = [];
    await forward(a, 1_000, warnings);
    expect((await rows()).map((x) => Number(x.origin_seq))).toEqual([0, 1, 2, 3, 4, 5]);
    expect(warnings.join('\n')).toMatch(/stopped forwarding .* at local seq 6: the event's hash does not match its content/);
    const r = await verifyTeamAudit(store, [keyOf(a)]);
    expect(r.ok).toBe(false);
    expect(r.events).toBe(6);
    expect(r.problems.join('\n')).toMatch(/stopped forwarding project alpha-0123456789abcdef at its local seq 6/);
  });
});

describe('team audit log: export', () => {
  it('exports a folder the offline verify accepts, and that it rejects once tampered', async () => {
    const a = tempMachine('alpha');
    appendLocal(a, 25);
    await forward(a, 10);
    const out = join(mkdtempSync(join(tmpdir(), 'gh-export-')), 'team');
    const r = await exportTeamAudit(store, out);
    expect(r).toEqual({ ok: true, value: { events: 25, checkpoints: expect.any(Number) } });
    expect(verifyAudit(out, [keyOf(a)])).toMatchObject({ ok: true, events: 25, covered: 25 });
    expect((await exportTeamAudit(store, out)).ok).toBe(false);
    const file = join(out, 'log.jsonl');
    writeFileSync(file, readFileSync(file, 'utf8').replace('src/file-7.ts', 'src/file-8.ts'));
    const bad = verifyAudit(out, [keyOf(a)]);
    expect(bad.ok).toBe(false);
    expect(bad.first_bad).toMatchObject({ seq: 7 });
  });

  it('a line set to NULL by hand is exported as an empty line, which the offline verify reports at its seq, as verify --store does', async () => {
    const a = tempMachine('alpha');
    appendLocal(a, 12);
    await forward(a, 10);
    await store.pool.query('ALTER TABLE gh_audit_events ALTER COLUMN line DROP NOT NULL');
    try {
      await store.pool.query('UPDATE gh_audit_events SET line = NULL WHERE seq = 5');
      const online = await verifyTeamAudit(store, [keyOf(a)]);
      expect(online.first_bad).toEqual({ seq: 5, reason: 'the line is not a JSON object' });
      const out = join(mkdtempSync(join(tmpdir(), 'gh-export-')), 'team');
      expect((await exportTeamAudit(store, out)).ok).toBe(true);
      expect(verifyAudit(out, [keyOf(a)]).first_bad).toEqual({ seq: 5, reason: 'the line is not a JSON object' });
    } finally {
      await store.pool.query('DELETE FROM gh_audit_events WHERE line IS NULL');
      await store.pool.query('ALTER TABLE gh_audit_events ALTER COLUMN line SET NOT NULL');
    }
  });

  it('refuses, writing nothing, a table holding a row that no scan in seq order reaches', async () => {
    const a = tempMachine('alpha');
    appendLocal(a, 12);
    await forward(a, 10);
    await store.pool.query('ALTER TABLE gh_audit_events DROP CONSTRAINT gh_audit_events_pkey, DROP CONSTRAINT gh_audit_events_machine_id_project_key_origin_seq_key');
    await store.pool.query('ALTER TABLE gh_audit_events ALTER COLUMN seq DROP NOT NULL');
    try {
      await store.pool.query('INSERT INTO gh_audit_events SELECT NULL, line, hash, machine_id, host, project_key, origin_seq, origin_hash FROM gh_audit_events WHERE seq = 3');
      const dir = mkdtempSync(join(tmpdir(), 'gh-export-'));
      const r = await exportTeamAudit(store, join(dir, 'team'));
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.reason).toContain('holds 13 rows but only 12 are in seq order');
      expect(readdirSync(dir)).toEqual([]);
      expect((await verifyTeamAudit(store, [keyOf(a)])).ok).toBe(false);
    } finally {
      await store.pool.query('DELETE FROM gh_audit_events WHERE seq IS NULL');
      await store.pool.query(
        'ALTER TABLE gh_audit_events ADD CONSTRAINT gh_audit_events_pkey PRIMARY KEY (seq), ADD CONSTRAINT gh_audit_events_machine_id_project_key_origin_seq_key UNIQUE (machine_id, project_key, origin_seq)',
      );
    }
  });

  it('gatehouse audit verify --store and audit export, with the exit codes of the file verify', async () => {
    const a = tempMachine('alpha');
    appendLocal(a, 12);
    await forward(a);
    const pub = join(a.state, 'pub.pem');
    writeFileSync(pub, loadOrCreateKey(a.state).publicKeyPem);
    const url = `${pg.url}?password_env=${pg.passwordEnv}`;
    const ok = gatehouse(['audit', 'verify', '--store', url, '--key', pub]);
    expect(ok.stdout).toMatch(/^intact: 12 events, 1 signed checkpoints/);
    expect(ok.status).toBe(0);
    expect(gatehouse(['audit', 'verify', '--store', url]).status).toBe(2);
    const out = join(mkdtempSync(join(tmpdir(), 'gh-export-')), 'team');
    const ex = gatehouse(['audit', 'export', '--store', url, '--out', out]);
    expect(ex.status).toBe(0);
    expect(existsSync(join(out, 'log.jsonl'))).toBe(true);
    expect(gatehouse(['audit', 'verify', '--dir', out, '--key', pub]).status).toBe(0);
    await store.pool.query(`DELETE FROM gh_audit_events WHERE seq = 4`);
    const broken = gatehouse(['audit', 'verify', '--store', url, '--key', pub]);
    expect(broken.stdout).toMatch(/^BROKEN: first bad sequence number 4: /);
    expect(broken.status).toBe(1);
  });
});
