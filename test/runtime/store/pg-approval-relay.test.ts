import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { approvalPaths, recordFile } from '../../../src/runtime/approvals/files.js';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Principal } from '../../../src/core/approvals/principal.js';
import type { PgStore } from '../../../src/runtime/store/pg-connect.js';
import { startSession } from '../../../src/gate/session-lifecycle.js';
import { auditEvents, decisionsFor, verifyProjectAudit } from '../../support/audit.js';
import { HOOK, hook, testEnv } from '../../support/cli.js';
import { startPostgresStore, stopPostgresStore, type TestPostgres } from '../../support/postgres.js';
import { bundleMachine, machineDirs, MachineProcess, tempRoot, type MachineDirs } from './approval-machines.js';

const bob: Principal = { id: 'token:bob', auth: 'scoped-token', grant: 'approvals' };
const carol: Principal = { id: 'token:carol', auth: 'scoped-token', grant: 'approvals' };
const alice: Principal = { id: 'os-user:alice', auth: 'local-shell' };

/** Relays in these tests poll quickly, so a test that waits on the poll waits briefly. */
const FAST = { pollMs: 200 };

let pg: TestPostgres;
let store: PgStore;
let script: string;
let tmp: ReturnType<typeof tempRoot>;
let running: MachineProcess[] = [];

beforeAll(async () => {
  ({ pg, store } = await startPostgresStore());
  tmp = tempRoot();
  script = bundleMachine(tmp.root);
}, 60_000);
afterAll(async () => {
  await stopPostgresStore(pg, store);
  tmp?.dispose();
});
let dirsA: MachineDirs;
let dirsB: MachineDirs;
let serial = 0;
beforeEach(async () => {
  await store.pool.query('TRUNCATE gh_approvals');
  serial++;
  dirsA = machineDirs(tmp.root, `a${serial}`);
  dirsB = machineDirs(tmp.root, `b${serial}`);
});
afterEach(async () => {
  await Promise.all(running.map((m) => m.stop()));
  running = [];
});

async function start(role: 'hook' | 'relay' | 'store', dirs: MachineDirs | null, opts?: object): Promise<MachineProcess> {
  const m = await MachineProcess.start(script, role, dirs, role === 'hook' ? null : pg, opts);
  running.push(m);
  return m;
}

const request = (summary: string, over: Record<string, unknown> = {}) => ({ session_id: 's1', agent: 'claude', tool: 'Bash', summary, ttlSeconds: 120, ...over });

/** Files a request on a hook process, which then waits for it; returns its id and nonce. */
async function file(hook: MachineProcess, summary: string, over: Record<string, unknown> = {}): Promise<{ id: string; nonce: string }> {
  const l = await hook.ask({ op: 'enqueue', input: request(summary, over) }, (x) => 'filed' in x);
  return { id: l.filed as string, nonce: l.nonce as string };
}

/** Lists the store from `resolver` until `id` shows up (the relay forwards it within a poll). */
async function listed(resolver: MachineProcess, id: string): Promise<Record<string, unknown>> {
  for (;;) {
    const l = await resolver.ask({ op: 'list' }, (x) => 'pending' in x);
    const found = (l.pending as Record<string, unknown>[]).find((p) => p.id === id);
    if (found !== undefined) return found;
    await new Promise((r) => setTimeout(r, 50));
  }
}

const woke = (hook: MachineProcess, id: string) => hook.next((l) => l.woke === id);

async function row(id: string): Promise<Record<string, unknown>> {
  const r = await store.pool.query('SELECT * FROM gh_approvals WHERE id = $1', [id]);
  return r.rows[0] as Record<string, unknown>;
}

describe('approvals relayed between machines through PostgreSQL', () => {
  it('a resolver on machine A releases a hook waiting on machine B, whose relay writes the answer into its local queue and audit log', async () => {
    const relayB = await start('relay', dirsB);
    const hookB = await start('hook', dirsB);
    const a = await start('store', dirsA);
    const { id, nonce } = await file(hookB, 'npm publish');
    const shown = await listed(a, id);
    expect(shown).toMatchObject({ id, nonce, summary: 'npm publish', machine: { id: relayB.lines[0]!.ready }, project_key: 'proj-0123456789abcdef' });
    const done = woke(hookB, id);
    const r = await a.ask({ op: 'resolve', id, decision: 'allow', nonce, reason: 'ok from A', principal: bob }, (l) => 'result' in l);
    expect(r.result).toMatchObject({ ok: true, value: { id, decision: 'allow', principal: bob } });
    expect((await done).resolution).toMatchObject({ id, decision: 'allow', reason: 'ok from A', principal: bob });
    // The answer is recorded on B exactly once, under the resolver's principal.
    expect(decisionsFor(dirsB.state, id).map((e) => e.actor)).toEqual(['token:bob']);
    expect(verifyProjectAudit(dirsB.state).ok).toBe(true);
    expect((await relayB.ask({ op: 'flush' }, (l) => 'flushed' in l)).flushed).toBe(true);
    expect(await row(id)).toMatchObject({ decision: 'allow', applied_decision: 'allow', conflict: false, resolved_by_machine: null });
  });

  it('two resolvers answering at once: exactly one wins, the other is told it is already resolved and by whom', async () => {
    await start('relay', dirsB, FAST);
    const hookB = await start('hook', dirsB);
    const [a1, a2] = [await start('store', dirsA), await start('store', machineDirs(tmp.root, `c${serial}`))];
    const rounds = 6;
    for (let i = 0; i < rounds; i++) {
      const { id, nonce } = await file(hookB, `deploy ${i}`);
      await listed(a1, id);
      const done = woke(hookB, id);
      const startAt = Date.now() + 300;
      const [r1, r2] = await Promise.all([
        a1.ask({ op: 'resolve', id, decision: 'allow', nonce, principal: bob, startAt }, (l) => 'result' in l),
        a2.ask({ op: 'resolve', id, decision: 'reject', nonce, principal: carol, startAt }, (l) => 'result' in l),
      ]);
      const results = [r1.result, r2.result] as { ok: boolean; value?: { principal: Principal }; error?: { code: string; message: string; winner: { principal: Principal } } }[];
      const winners = results.filter((x) => x.ok);
      const losers = results.filter((x) => !x.ok);
      expect(winners).toHaveLength(1);
      expect(losers).toHaveLength(1);
      const winner = winners[0]!.value!.principal.id;
      expect(losers[0]!.error).toMatchObject({ code: 'already_resolved', winner: { principal: { id: winner } } });
      expect(losers[0]!.error!.message).toContain(`by ${winner}`);
      // The hook acts on the winner's answer, and B records that one answer only.
      expect(((await done).resolution as { principal: Principal }).principal.id).toBe(winner);
      expect(decisionsFor(dirsB.state, id).map((e) => e.actor)).toEqual([winner]);
    }
  });

  it('TTL expiry: two nodes racing to expire the same overdue requests deny each exactly once', async () => {
    const n = 40;
    // Requests of a machine that is gone (nobody relays them any more), all overdue.
    for (let i = 0; i < n; i++) {
      await store.pool.query(
        `INSERT INTO gh_approvals (id, machine_id, host, os_user, project_key, session_id, agent, tool, summary, nonce, created_at, expires_at)
         VALUES ($1, 'm-00000000000000dd', 'gone', 'u', 'p', 's', 'claude', 'Bash', 'x', $2, now() - interval '2 minutes', now() - interval '1 minute')`,
        [`ap-0000000${i.toString(36).padStart(2, '0')}-${'ab'.repeat(6)}`, 'f'.repeat(32)],
      );
    }
    const [x, y] = [await start('store', dirsA), await start('store', dirsB)];
    const startAt = Date.now() + 500;
    const [ex, ey] = await Promise.all([x.ask({ op: 'expire', startAt }, (l) => 'expired' in l), y.ask({ op: 'expire', startAt }, (l) => 'expired' in l)]);
    const ids = [...(ex.expired as string[]), ...(ey.expired as string[])];
    expect(ids).toHaveLength(n);
    expect(new Set(ids).size).toBe(n);
    const rows = await store.pool.query(`SELECT decision, expired, principal->>'id' AS who, reason FROM gh_approvals`);
    expect(rows.rows.every((r) => r.decision === 'reject' && r.expired === true && r.who === 'system:approval-queue/ttl-expiry' && r.reason === 'approval timed out after 60 s')).toBe(true);
    // Too late for a person: the answer is refused as timed out.
    const late = await x.ask({ op: 'resolve', id: ids[0], decision: 'allow', principal: alice }, (l) => 'result' in l);
    expect(late.result).toMatchObject({ ok: false, error: { code: 'already_resolved', winner: { expired: true } } });
  });

  it('the database killed mid-wait and started again: the wait completes, a request filed meanwhile is forwarded, nothing is lost or doubled', async () => {
    const relayB = await start('relay', dirsB, FAST);
    const hookB = await start('hook', dirsB);
    const first = await file(hookB, 'terraform apply');
    const a = await start('store', dirsA);
    await listed(a, first.id);
    await a.stop();
    pg.kill();
    // Filed while the store is down: it waits in B's queue, the spool.
    const second = await file(hookB, 'kubectl delete ns staging');
    await relayB.next((l) => typeof l.warn === 'string' && l.warn.includes('unreachable'));
    pg.start();
    await relayB.next((l) => typeof l.warn === 'string' && l.warn.includes('reachable again'));
    const a2 = await start('store', dirsA);
    await listed(a2, second.id);
    const done1 = woke(hookB, first.id);
    const done2 = woke(hookB, second.id);
    expect((await a2.ask({ op: 'resolve', id: first.id, nonce: first.nonce, decision: 'allow', principal: bob }, (l) => 'result' in l)).result).toMatchObject({ ok: true });
    expect((await a2.ask({ op: 'resolve', id: second.id, nonce: second.nonce, decision: 'reject', principal: bob }, (l) => 'result' in l)).result).toMatchObject({ ok: true });
    expect((await done1).resolution).toMatchObject({ decision: 'allow', principal: bob });
    expect((await done2).resolution).toMatchObject({ decision: 'reject', principal: bob });
    const rows = await store.pool.query('SELECT id FROM gh_approvals ORDER BY id');
    expect(rows.rows.map((r) => r.id)).toEqual([first.id, second.id].sort());
    expect(decisionsFor(dirsB.state, first.id)).toHaveLength(1);
    expect(decisionsFor(dirsB.state, second.id)).toHaveLength(1);
  });

  it('with LISTEN off, polling alone brings the answer down', async () => {
    await start('relay', dirsB, { ...FAST, listen: false });
    const hookB = await start('hook', dirsB);
    const a = await start('store', dirsA);
    const { id, nonce } = await file(hookB, 'git push --force');
    await listed(a, id);
    const done = woke(hookB, id);
    await a.ask({ op: 'resolve', id, nonce, decision: 'allow', principal: bob }, (l) => 'result' in l);
    expect((await done).resolution).toMatchObject({ decision: 'allow', principal: bob });
  });

  it('with the listening connection cut by the server, answers still arrive (polling, then LISTEN again)', async () => {
    await start('relay', dirsB, FAST);
    const hookB = await start('hook', dirsB);
    const a = await start('store', dirsA);
    for (let i = 0; i < 2; i++) {
      const { id, nonce } = await file(hookB, `make release ${i}`);
      await listed(a, id);
      const cut = await store.pool.query(`SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE query LIKE 'LISTEN%'`);
      if (i === 0) expect(cut.rows.length).toBeGreaterThan(0);
      const done = woke(hookB, id);
      await a.ask({ op: 'resolve', id, nonce, decision: 'allow', principal: bob }, (l) => 'result' in l);
      expect((await done).resolution).toMatchObject({ decision: 'allow' });
    }
  });
});

describe('the real hook on machine B', () => {
  /** The hook's environment: this process's, less the store's password (hooks never hold it). */
  const hookEnv = (): NodeJS.ProcessEnv => Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('GH_TEST_PG_PASSWORD')));

  it('the PreToolUse hook waits on its local queue and an "always" from machine A releases it; B records the answer and adds the rule', async () => {
    const root = join(tmp.root, `wt${serial}`);
    mkdirSync(join(root, 'src'), { recursive: true });
    writeFileSync(join(root, 'gatehouse.yaml'), 'approvals:\n  interactive: true\n');
    const started = await startSession({ agent: 'claude', worktree: root, allow: ['src/**'], require: [], stateDir: dirsB.state, env: testEnv(), nodePath: process.execPath, hookBundle: HOOK });
    if (!started.ok) throw new Error(started.reason);
    const sid = started.value.policy.session_id;
    await start('relay', dirsB, FAST);
    const a = await start('store', dirsA);
    const args = ['check', '--session', sid, '--event', 'PreToolUse', '--state-dir', dirsB.state];
    const payload = { hook_event_name: 'PreToolUse', cwd: root, tool_name: 'Bash', tool_input: { command: 'make deploy' } };
    const child = spawn(process.execPath, [HOOK, ...args], { stdio: ['pipe', 'pipe', 'pipe'], env: hookEnv() });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    child.stdin.end(JSON.stringify(payload));
    let shown: { id: string; nonce: string; session_id: string } | undefined;
    while (shown === undefined) {
      const l = await a.ask({ op: 'list' }, (x) => 'pending' in x);
      shown = (l.pending as { id: string; nonce: string; session_id: string }[]).find((p) => p.session_id === sid);
      if (shown === undefined) await new Promise((r) => setTimeout(r, 50));
    }
    expect((await a.ask({ op: 'resolve', id: shown.id, nonce: shown.nonce, decision: 'always', principal: bob }, (l) => 'result' in l)).result).toMatchObject({ ok: true });
    expect(await exited, stderr).toBe(0);
    expect(decisionsFor(dirsB.state, shown.id).map((e) => [e.actor, e.data.decision])).toEqual([['token:bob', 'always']]);
    expect(auditEvents(dirsB.state).some((e) => e.type === 'always_allow_added')).toBe(true);
    // The rule made by the answer from A: the same call is now allowed on B without asking.
    expect(hook(args, payload).status).toBe(0);
    expect(verifyProjectAudit(dirsB.state).ok).toBe(true);
  });
});

describe('failure behaviour by posture, conflicts and catching up', () => {
  function session(dirs: MachineDirs, id: string, posture: 'fail-open' | 'fail-closed'): void {
    mkdirSync(join(dirs.state, 'sessions', id), { recursive: true });
    writeFileSync(join(dirs.state, 'sessions', id, 'policy.json'), JSON.stringify({ session_id: id, posture, sandboxed: false }));
  }

  it('store unreachable past the grace period: a fail-closed request is denied on the machine, a fail-open one keeps waiting; both reach the store when it is back', async () => {
    session(dirsB, 'closed1', 'fail-closed');
    session(dirsB, 'open1', 'fail-open');
    const relayB = await start('relay', dirsB, { ...FAST, storeGraceMs: 1_000 });
    const hookB = await start('hook', dirsB);
    const closed = await file(hookB, 'drop table users', { session_id: 'closed1' });
    const open = await file(hookB, 'npm publish', { session_id: 'open1' });
    expect((await relayB.ask({ op: 'flush' }, (l) => 'flushed' in l)).flushed).toBe(true);
    pg.kill();
    const denied = await woke(hookB, closed.id);
    expect(denied.resolution).toMatchObject({ decision: 'reject', principal: { id: 'system:approval-relay/store-unreachable' } });
    // The fail-open request was not denied with it.
    const openState = await hookB.ask({ op: 'local-state', id: open.id }, (l) => 'state' in l);
    expect((openState.state as { resolution: unknown }).resolution).toBeNull();
    expect((await relayB.ask({ op: 'flush' }, (l) => 'flushed' in l)).flushed).toBe(false);
    pg.start();
    await relayB.next((l) => typeof l.warn === 'string' && l.warn.includes('reachable again'));
    expect((await relayB.ask({ op: 'flush' }, (l) => 'flushed' in l)).flushed).toBe(true);
    expect(await row(closed.id)).toMatchObject({ decision: 'reject', applied_decision: 'reject', conflict: false, principal: { id: 'system:approval-relay/store-unreachable' } });
    const a = await start('store', dirsA);
    const done = woke(hookB, open.id);
    expect((await a.ask({ op: 'resolve', id: open.id, nonce: open.nonce, decision: 'allow', principal: bob }, (l) => 'result' in l)).result).toMatchObject({ ok: true });
    expect((await done).resolution).toMatchObject({ decision: 'allow', principal: bob });
  });

  it('a local answer given while the machine was cut off, against a different answer in the store: the agent keeps its answer, and the row and the local log record the conflict', async () => {
    const relayB = await start('relay', dirsB, FAST);
    const hookB = await start('hook', dirsB);
    const a = await start('store', dirsA);
    const { id, nonce } = await file(hookB, 'rm -rf dist');
    await listed(a, id);
    // B loses its link; meanwhile A allows in the store and a person on B rejects locally.
    await relayB.ask({ op: 'stop-relay' }, (l) => 'stopped' in l);
    expect((await a.ask({ op: 'resolve', id, nonce, decision: 'allow', principal: bob }, (l) => 'result' in l)).result).toMatchObject({ ok: true });
    await hookB.ask({ op: 'resolve-local', id, decision: 'reject', reason: 'not now', principal: alice }, (l) => 'resolved' in l);
    expect((await woke(hookB, id)).resolution).toMatchObject({ decision: 'reject', principal: alice });
    await relayB.ask({ op: 'start-relay' }, (l) => 'started' in l);
    expect((await relayB.ask({ op: 'flush' }, (l) => 'flushed' in l)).flushed).toBe(true);
    expect(await row(id)).toMatchObject({ decision: 'allow', principal: { id: 'token:bob' }, applied_decision: 'reject', applied_principal: { id: 'os-user:alice' }, conflict: true });
    const conflicts = auditEvents(dirsB.state).filter((e) => e.type === 'approval_conflict');
    expect(conflicts).toEqual([
      expect.objectContaining({
        actor: 'system:approval-relay',
        data: { approval_id: id, tool: 'Bash', store_decision: 'allow', store_decided_by: 'token:bob', applied_decision: 'reject', applied_decided_by: 'os-user:alice' },
      }),
    ]);
    expect(relayB.lines.some((l) => typeof l.warn === 'string' && l.warn.includes('both are recorded'))).toBe(true);
    // Only the local answer took effect on B: one decision event.
    expect(decisionsFor(dirsB.state, id).map((e) => e.actor)).toEqual(['os-user:alice']);
    // A second relay start records nothing twice.
    await relayB.ask({ op: 'stop-relay' }, (l) => 'stopped' in l);
    await relayB.ask({ op: 'start-relay' }, (l) => 'started' in l);
    expect((await relayB.ask({ op: 'flush' }, (l) => 'flushed' in l)).flushed).toBe(true);
    expect(auditEvents(dirsB.state).filter((e) => e.type === 'approval_conflict')).toHaveLength(1);
  });

  it('a relay started after requests were filed and answered locally catches up: the open one is filed, the answered one is pushed as its local answer', async () => {
    const hookB = await start('hook', dirsB);
    const open = await file(hookB, 'npm run deploy');
    const answered = await file(hookB, 'git tag v1');
    await hookB.ask({ op: 'resolve-local', id: answered.id, decision: 'allow', principal: alice }, (l) => 'resolved' in l);
    await woke(hookB, answered.id);
    const relayB = await start('relay', dirsB, FAST);
    expect((await relayB.ask({ op: 'flush' }, (l) => 'flushed' in l)).flushed).toBe(true);
    expect(await row(open.id)).toMatchObject({ decision: null, applied_decision: null });
    expect(await row(answered.id)).toMatchObject({ decision: 'allow', principal: alice, applied_decision: 'allow', conflict: false, resolved_by_machine: relayB.lines[0]!.ready });
    const a = await start('store', dirsA);
    const listedNow = (await a.ask({ op: 'list' }, (l) => 'pending' in l)).pending as { id: string }[];
    expect(listedNow.map((p) => p.id)).toEqual([open.id]);
  });
  it('an answer written around the queue (a resolution file no audit event vouches for) reaches the store as the denial the agent got, never as the person it names', async () => {
    const hookB = await start('hook', dirsB);
    const forged = await file(hookB, 'git push --force origin main');
    // What an agent without a sandbox can do: write the resolution file itself, naming a person.
    const resolution = { id: forged.id, decision: 'allow', reason: null, principal: alice, resolved_at: new Date().toISOString() };
    writeFileSync(recordFile(approvalPaths(dirsB.state).resolved, forged.id), `${JSON.stringify(resolution, null, 2)}\n`);
    const relayB = await start('relay', dirsB, FAST);
    expect((await relayB.ask({ op: 'flush' }, (l) => 'flushed' in l)).flushed).toBe(true);
    const r = await row(forged.id);
    expect(r).toMatchObject({ decision: 'reject', applied_decision: 'reject' });
    expect(JSON.stringify(r)).not.toContain(alice.id);
  });
});
