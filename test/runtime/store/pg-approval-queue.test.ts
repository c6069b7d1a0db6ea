import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Principal } from '../../../src/core/approvals/principal.js';
import { ApprovalQueue, type PendingApproval } from '../../../src/runtime/approvals/index.js';
import { PgApprovalQueue } from '../../../src/runtime/store/pg-approval-queue.js';
import { insertRequest } from '../../../src/runtime/store/pg-approval-rows.js';
import { openStore, type PgStore } from '../../../src/runtime/store/pg-connect.js';
import type { Machine } from '../../../src/runtime/store/machine.js';
import { gatehouse } from '../../support/cli.js';
import { startPostgresStore, stopPostgresStore, type TestPostgres } from '../../support/postgres.js';
import { tempRoot } from './approval-machines.js';

const bob: Principal = { id: 'token:bob', auth: 'scoped-token', grant: 'approvals' };
const machineB: Machine = { id: 'm-00000000000000b0', host: 'build-box', user: 'ci' };

let pg: TestPostgres;
let store: PgStore;
let tmp: ReturnType<typeof tempRoot>;
let local: ApprovalQueue;

beforeAll(async () => {
  ({ pg, store } = await startPostgresStore());
  tmp = tempRoot();
  local = new ApprovalQueue(tmp.root);
}, 60_000);
afterAll(async () => {
  await stopPostgresStore(pg, store);
  tmp?.dispose();
});
beforeEach(async () => {
  // After a test restarted the server, the pool may still hold a connection it cut: the first query drops it.
  await store.pool.query('SELECT 1').catch(() => {});
  await store.pool.query('TRUNCATE gh_approvals');
});

/** A request filed in a real local queue, then forwarded to the store as machine B's relay would. */
async function filed(summary: string, ttlSeconds = 120, over: Partial<PendingApproval> = {}): Promise<PendingApproval> {
  const p = { ...local.enqueue({ session_id: 's1', agent: 'claude', tool: 'Bash', summary, ttlSeconds, always: { tool: 'Bash', on: 'command', paths: [] } }), ...over };
  expect(await insertRequest(store.pool, p, machineB, 'proj-1')).toBe(true);
  return p;
}

describe('the store queue API', () => {
  it('lists every machine’s open requests with the record as filed, and files a request only once', async () => {
    const p = await filed('npm publish');
    expect(await insertRequest(store.pool, p, machineB, 'proj-1')).toBe(false);
    const q = new PgApprovalQueue(store);
    const [only, ...rest] = await q.list();
    expect(rest).toEqual([]);
    const { pid: _pid, waiter: _waiter, ...record } = p;
    expect(only).toEqual({ ...record, machine: machineB, project_key: 'proj-1' });
    expect(await q.list({ project: 'other' })).toEqual([]);
    expect(await q.list({ machine: machineB.id, session: 's1' })).toHaveLength(1);
  });

  it('refuses an HTTP-style resolver without the right nonce (409 nonce_mismatch) and names no state', async () => {
    const p = await filed('rm -rf build');
    const q = new PgApprovalQueue(store);
    expect(await q.resolve(p.id, { decision: 'allow', principal: bob })).toMatchObject({ ok: false, error: { code: 'nonce_mismatch' } });
    expect(await q.resolve(p.id, { decision: 'allow', principal: bob, nonce: '0'.repeat(32) })).toMatchObject({ ok: false, error: { code: 'nonce_mismatch' } });
    expect((await q.get(p.id))?.resolution).toBeNull();
    expect(await q.resolve('ap-1-00000000', { decision: 'allow', principal: bob, nonce: p.nonce })).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect(await q.resolve('../x', { decision: 'allow', principal: bob })).toMatchObject({ ok: false, error: { code: 'bad_id' } });
    expect(await q.resolve(p.id, { decision: 'allow', principal: { id: 'system:me', auth: 'scoped-token', grant: 'x' } })).toMatchObject({ ok: false, error: { code: 'bad_principal' } });
  });

  it('the first answer wins; a second is refused as already resolved, naming the first', async () => {
    const p = await filed('git push');
    const q = new PgApprovalQueue(store);
    const first = await q.resolve(p.id, { decision: 'always', principal: bob, nonce: p.nonce, reason: 'fine' });
    expect(first).toMatchObject({ ok: true, value: { id: p.id, decision: 'always', reason: 'fine', principal: bob } });
    const second = await q.resolve(p.id, { decision: 'reject', principal: { id: 'os-user:alice', auth: 'local-shell' } });
    expect(second).toMatchObject({ ok: false, error: { code: 'already_resolved', winner: { decision: 'always', principal: bob } } });
    if (!second.ok) expect(second.error.message).toContain('answered always by token:bob');
    expect(await q.list()).toEqual([]);
    expect((await q.get(p.id))?.resolution).toMatchObject({ decision: 'always' });
  });

  it('an answer after the expiry is refused as timed out, and the request is denied once', async () => {
    const past = new Date(Date.now() - 1000).toISOString();
    const p = await filed('deploy', 120, { created_at: new Date(Date.now() - 61_000).toISOString(), expires_at: past });
    const q = new PgApprovalQueue(store);
    const late = await q.resolve(p.id, { decision: 'allow', principal: bob, nonce: p.nonce });
    expect(late).toMatchObject({ ok: false, error: { code: 'already_resolved', winner: { expired: true, decision: 'reject', principal: { id: 'system:approval-queue/ttl-expiry' } } } });
    if (!late.ok) expect(late.error.message).toContain('timed out');
  });

  it('a store that cannot be reached is not_recorded (503), never an exception', async () => {
    const p = await filed('make clean');
    const other = await openStore({ kind: 'postgres', url: pg.url, passwordEnv: pg.passwordEnv }, { max: 1 });
    if (!other.ok) throw new Error(other.reason);
    pg.kill();
    try {
      const r = await new PgApprovalQueue(other.value).resolve(p.id, { decision: 'allow', principal: bob, nonce: p.nonce });
      expect(r).toMatchObject({ ok: false, error: { code: 'not_recorded' } });
    } finally {
      pg.start();
      await other.value.close();
    }
  });
});

describe('gatehouse approve --store', () => {
  const env = (): NodeJS.ProcessEnv => ({ [pg.passwordEnv]: pg.password, GATEHOUSE_HOME: tmp.root, USER: 'alice' });
  const url = (): string => `${pg.url}?password_env=${pg.passwordEnv}`;

  it('lists the team’s requests with their machine, and answers one by id as the person at this shell', async () => {
    const p = await filed('npm publish --tag next');
    const listed = gatehouse(['approve', '--list', '--store', url(), '--json'], { env: env() });
    expect(listed.status).toBe(0);
    expect((JSON.parse(listed.stdout) as { id: string; machine: Machine }[]).map((x) => [x.id, x.machine.host])).toEqual([[p.id, 'build-box']]);
    const text = gatehouse(['approve', '--list', '--store', url()], { env: env() });
    expect(text.stdout).toContain('machine build-box');
    expect(text.stdout).toContain(`gatehouse approve ${p.id} --nonce ${p.nonce} --store`);
    const answered = gatehouse(['approve', p.id, '--nonce', p.nonce, '--deny', '--reason', 'not today', '--store', url()], { env: env() });
    expect(answered.stderr).toBe('');
    expect(answered.status).toBe(0);
    const row = await new PgApprovalQueue(store).get(p.id);
    expect(row?.resolution).toMatchObject({ decision: 'reject', reason: 'not today', principal: { auth: 'local-shell' } });
    const again = gatehouse(['approve', p.id, '--store', url()], { env: env() });
    expect(again.status).toBe(1);
    expect(again.stderr).toContain('already resolved');
  });

  it('refuses local-only modes and a file store by name (exit 2)', () => {
    const latest = gatehouse(['approve', '--latest', '--store', url()], { env: env() });
    expect(latest.status).toBe(2);
    expect(latest.stderr).toContain("--latest works on this machine's queue only");
    const file = gatehouse(['approve', '--list', '--store', 'file'], { env: env() });
    expect(file.status).toBe(2);
    const noStore = gatehouse(['approve', '--list', '--store', '--worktree', tmp.root], { env: { ...env(), GATEHOUSE_STORE: '' } });
    expect(noStore.status).toBe(2);
    expect(noStore.stderr).toContain('file store');
  });
});
