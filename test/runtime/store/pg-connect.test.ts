import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inTransaction, isConnectionError, openStore } from '../../../src/runtime/store/pg-connect.js';
import { SCHEMA_VERSION } from '../../../src/runtime/store/pg-schema.js';
import { parseStoreSetting, selectStore, storeLabel, type PostgresSpec } from '../../../src/runtime/store/store-setting.js';
import { startPostgres, type TestPostgres } from '../../support/postgres.js';

describe('store setting', () => {
  it('reads file and postgres URLs, and takes the password variable out of the URL', () => {
    expect(parseStoreSetting('file', 'x')).toEqual({ ok: true, value: { kind: 'file' } });
    const r = parseStoreSetting('postgres://gh@db.internal:5432/team?password_env=GH_PG&sslmode=require', 'x');
    expect(r).toEqual({ ok: true, value: { kind: 'postgres', url: 'postgres://gh@db.internal:5432/team?sslmode=require', passwordEnv: 'GH_PG' } });
  });

  it.each([
    ['postgres://gh:secret@db/team', 'holds a password'],
    ['postgres://db/team', 'names no user'],
    ['postgres://gh@db', 'names no database'],
    ['postgres://gh@db/team?pasword_env=X', 'unknown URL parameter `pasword_env`'],
    ['postgres://gh@db/team?password_env=1bad', 'name of an environment variable'],
    ['mysql://gh@db/team', 'expected `file` or a postgres:// URL'],
    ['fil', 'expected `file` or a postgres:// URL'],
  ])('refuses %s with a message that says what to do', (text, words) => {
    const r = parseStoreSetting(text, 'gatehouse.yaml: store');
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.reason).toContain(words);
      expect(r.reason).not.toContain('secret');
    }
  });

  it('a project setting wins over GATEHOUSE_STORE, which wins over the file store', () => {
    const pg = parseStoreSetting('postgres://a@h/d', 'x');
    if (!pg.ok) throw new Error(pg.reason);
    expect(selectStore(pg.value, { GATEHOUSE_STORE: 'file' })).toEqual({ ok: true, value: pg.value });
    expect(selectStore(null, { GATEHOUSE_STORE: 'postgres://b@h/d' })).toMatchObject({ ok: true, value: { url: 'postgres://b@h/d' } });
    expect(selectStore(null, {})).toEqual({ ok: true, value: { kind: 'file' } });
    expect(selectStore(null, { GATEHOUSE_STORE: 'postgress://b@h/d' }).ok).toBe(false);
    expect(storeLabel(pg.value)).toBe('postgres://a@h/d');
  });
});

describe('openStore against a real server', () => {
  let pg: TestPostgres;
  beforeAll(async () => {
    pg = await startPostgres();
  });
  afterAll(() => pg?.destroy());

  const spec = (): PostgresSpec => ({ kind: 'postgres', url: pg.url, passwordEnv: pg.passwordEnv });

  it('connects with the password from the named variable and creates the schema, twice and at once', async () => {
    const opened = await Promise.all([openStore(spec()), openStore(spec())]);
    for (const o of opened) {
      if (!o.ok) throw new Error(o.reason);
      if (!o.ok) continue;
      const v = await o.value.pool.query<{ value: string }>(`SELECT value FROM gh_meta WHERE key = 'schema_version'`);
      expect(v.rows[0]?.value).toBe(String(SCHEMA_VERSION));
      await o.value.close();
    }
  });

  it('says which variable is missing, and that a wrong password was refused', async () => {
    const missing = await openStore({ ...spec(), passwordEnv: 'GH_TEST_NOT_SET' });
    expect(missing).toMatchObject({ ok: false });
    if (!missing.ok) expect(missing.reason).toContain('$GH_TEST_NOT_SET, which is not set');
    const wrong = await openStore(spec(), { env: { [pg.passwordEnv]: 'not-the-password' } });
    expect(wrong.ok).toBe(false);
    if (!wrong.ok) expect(wrong.reason).toContain('the password was refused');
  });

  it("a store named by a project's config never gets PGPASSWORD: a secret meant for another database is not sent to the host it names", async () => {
    const saved = process.env['PGPASSWORD'];
    try {
      // The user's own setting may use PGPASSWORD.
      process.env['PGPASSWORD'] = pg.password;
      const mine = await openStore({ kind: 'postgres', url: pg.url, passwordEnv: null });
      if (!mine.ok) throw new Error(mine.reason);
      await mine.value.close();
      // The same URL from a project's config: PGPASSWORD is taken out and not used, so the server refuses.
      process.env['PGPASSWORD'] = pg.password;
      const project = parseStoreSetting(`${pg.url}`, 'gatehouse.yaml: store', 'project');
      if (!project.ok || project.value.kind !== 'postgres') throw new Error('expected a postgres setting');
      const theirs = await openStore(project.value);
      expect(theirs.ok).toBe(false);
      expect(process.env['PGPASSWORD']).toBeUndefined();
    } finally {
      if (saved === undefined) delete process.env['PGPASSWORD'];
      else process.env['PGPASSWORD'] = saved;
    }
  });

  it('inTransaction commits what returns and rolls back what throws', async () => {
    const o = await openStore(spec());
    if (!o.ok) throw new Error(o.reason);
    const { pool } = o.value;
    await pool.query('CREATE TABLE IF NOT EXISTS t_tx (v int)');
    await inTransaction(pool, (c) => c.query('INSERT INTO t_tx VALUES (1)'));
    await expect(
      inTransaction(pool, async (c) => {
        await c.query('INSERT INTO t_tx VALUES (2)');
        throw new Error('no');
      }),
    ).rejects.toThrow('no');
    expect((await pool.query('SELECT v FROM t_tx ORDER BY v')).rows).toEqual([{ v: 1 }]);
    await o.value.close();
  });

  it('tells a server that went away from a bug', async () => {
    const { default: pgm } = await import('pg');
    const c = new pgm.Client({ connectionString: 'postgres://gatehouse@127.0.0.1:1/postgres', connectionTimeoutMillis: 1000 });
    const err = await c.connect().then(
      () => null,
      (e: unknown) => e,
    );
    expect(isConnectionError(err)).toBe(true);
    expect(isConnectionError(new Error('syntax error at or near "SELEC"'))).toBe(false);
  });

  it('a store that is down is a clear error that names the fallback', async () => {
    const down = await openStore({ kind: 'postgres', url: 'postgres://gatehouse@127.0.0.1:1/postgres', passwordEnv: pg.passwordEnv });
    expect(down.ok).toBe(false);
    if (!down.ok) expect(down.reason).toMatch(/Cannot use the team store postgres:\/\/gatehouse@127\.0\.0\.1:1\/postgres .*--store-fallback file/);
  });
});

describe('thisMachine', () => {
  it('makes one id per state base and keeps it; a damaged file is replaced', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { thisMachine } = await import('../../../src/runtime/store/machine.js');
    const base = mkdtempSync(join(tmpdir(), 'gh-machine-'));
    const a = thisMachine({ GATEHOUSE_HOME: base });
    expect(a.id).toMatch(/^m-[0-9a-f]{16}$/);
    expect(thisMachine({ GATEHOUSE_HOME: base }).id).toBe(a.id);
    writeFileSync(join(base, 'machine-id'), 'garbage');
    const b = thisMachine({ GATEHOUSE_HOME: base });
    expect(b.id).not.toBe(a.id);
    expect(thisMachine({ GATEHOUSE_HOME: base }).id).toBe(b.id);
  });
});
