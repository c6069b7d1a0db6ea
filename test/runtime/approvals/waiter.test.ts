// The waiter heartbeat: a request is swept when nobody waits on it any more, even while the
// pid on it lives on (a warm hook's pid is the supervisor's, which outlives any one wait).
import { existsSync, lutimesSync, readdirSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApprovalQueue } from '../../../src/runtime/approvals/index.js';
import { WAITER_ID_RE } from '../../../src/runtime/approvals/record.js';
import { approvalPaths } from '../../../src/runtime/approvals/files.js';
import { beat, WAITER_STALE_MS } from '../../../src/runtime/approvals/waiter.js';
import { alice, request, tempProject } from './helpers.js';

let project: ReturnType<typeof tempProject>;
let q: ApprovalQueue;
beforeEach(() => {
  project = tempProject();
  q = new ApprovalQueue(project.state);
});
afterEach(() => project.dispose());

const waiters = (): string => join(project.state, 'approvals', 'waiters');
const pendingFile = (id: string): string => join(project.state, 'approvals', 'pending', `${id}.json`);
const ageBy = (file: string, ms: number): void => utimesSync(file, new Date(Date.now() - ms), new Date(Date.now() - ms));

describe('waiter heartbeat', () => {
  it('files each request with its own waiter id, whose heartbeat exists before the request does', () => {
    const a = q.enqueue(request());
    const b = q.enqueue(request());
    expect(a.waiter).toMatch(WAITER_ID_RE);
    expect(b.waiter).not.toBe(a.waiter);
    expect(readdirSync(waiters()).sort()).toEqual([a.waiter, b.waiter].sort());
  });

  it('denies an open request whose heartbeat stopped although its pid (this process) is alive', () => {
    const dead = q.enqueue(request());
    const live = q.enqueue(request());
    ageBy(join(waiters(), dead.waiter as string), WAITER_STALE_MS + 5_000);
    expect(q.sweep()).toBe(1);
    const swept = q.get(dead.id).resolution;
    expect(swept).toMatchObject({ decision: 'reject', principal: { id: 'system:approval-queue/sweeper' } });
    expect(swept?.reason).toMatch(/stopped its heartbeat \d+ s ago/);
    expect(q.get(live.id).resolution).toBeNull();
    // The stopped heartbeat is removed once its request is denied; the live one stays.
    expect(readdirSync(waiters())).toEqual([live.waiter]);
  });

  it('denies a request whose heartbeat was removed: a missing heartbeat fails closed', () => {
    const p = q.enqueue(request());
    rmSync(join(waiters(), p.waiter as string));
    expect(q.sweep()).toBe(1);
    expect(q.get(p.id).resolution?.reason).toMatch(/left no heartbeat/);
  });

  it('judges a record from an older Gatehouse (no waiter) by its pid only', () => {
    const p = q.enqueue(request());
    const { waiter: _w, ...old } = p;
    writeFileSync(pendingFile(p.id), JSON.stringify(old));
    rmSync(join(waiters(), p.waiter as string));
    expect(q.sweep()).toBe(0);
    expect(q.get(p.id)).toMatchObject({ pending: old, resolution: null, problem: null });
  });

  it('refuses a record whose waiter could name a path outside the waiters folder', () => {
    const p = q.enqueue(request());
    writeFileSync(pendingFile(p.id), JSON.stringify({ ...p, waiter: '../pending/x' }));
    expect(q.get(p.id).problem?.message).toMatch(/waiter must be w- and 16 lowercase hex digits/);
    expect(q.list()).toEqual([]);
  });

  it('keeps the heartbeat while a wait runs and removes it when the answer arrives', async () => {
    const p = q.enqueue(request());
    const file = join(waiters(), p.waiter as string);
    const waiting = q.waitFor(p.id, {});
    expect(existsSync(file)).toBe(true);
    q.resolve(p.id, { decision: 'allow', principal: alice });
    await expect(waiting).resolves.toMatchObject({ decision: 'allow' });
    expect(existsSync(file)).toBe(false);
  });

  it('removes the heartbeat when the wait is aborted', async () => {
    const p = q.enqueue(request());
    const ctl = new AbortController();
    const waiting = q.waitFor(p.id, { signal: ctl.signal });
    ctl.abort(new Error('client went away'));
    await expect(waiting).rejects.toThrow('client went away');
    expect(existsSync(join(waiters(), p.waiter as string))).toBe(false);
  });

  it('never follows a heartbeat name planted as a link, to touch or to judge', () => {
    const p = q.enqueue(request());
    const file = join(waiters(), p.waiter as string);
    const target = join(project.state, 'outside');
    writeFileSync(target, 'x');
    ageBy(target, 3_600_000);
    rmSync(file);
    symlinkSync(target, file);
    beat(approvalPaths(project.state), p.waiter as string);
    // The beat touched the link, not the file it points at.
    expect(Date.now() - statSync(target).mtimeMs).toBeGreaterThan(3_000_000);
    // A fresh target does not keep alive a link whose own time stopped.
    utimesSync(target, new Date(), new Date());
    const old = new Date(Date.now() - WAITER_STALE_MS - 5_000);
    lutimesSync(file, old, old);
    expect(q.sweep()).toBe(1);
    expect(q.get(p.id).resolution?.reason).toMatch(/stopped its heartbeat/);
  });

  it("rings the answered request's own wait: its heartbeat's access time changes (which wakes the watch), its mtime and the others' do not", () => {
    const a = q.enqueue(request());
    const b = q.enqueue(request());
    const old = new Date(Date.now() - 60_000);
    for (const p of [a, b]) utimesSync(join(waiters(), p.waiter as string), old, old);
    q.resolve(a.id, { decision: 'allow', principal: alice });
    const rung = statSync(join(waiters(), a.waiter as string));
    expect(Date.now() - rung.atimeMs).toBeLessThan(30_000);
    expect(Math.abs(rung.mtimeMs - old.getTime())).toBeLessThan(1);
    expect(Math.abs(statSync(join(waiters(), b.waiter as string)).atimeMs - old.getTime())).toBeLessThan(1);
  });

  it('never creates a heartbeat it rings, and never touches what a planted link points to', () => {
    const gone = q.enqueue(request());
    rmSync(join(waiters(), gone.waiter as string));
    q.resolve(gone.id, { decision: 'allow', principal: alice });
    expect(existsSync(join(waiters(), gone.waiter as string))).toBe(false);
    const linked = q.enqueue(request());
    const target = join(project.state, 'elsewhere');
    writeFileSync(target, '');
    const old = new Date(Date.now() - 60_000);
    utimesSync(target, old, old);
    rmSync(join(waiters(), linked.waiter as string));
    symlinkSync(target, join(waiters(), linked.waiter as string));
    q.resolve(linked.id, { decision: 'allow', principal: alice });
    expect(Math.abs(statSync(target).atimeMs - old.getTime())).toBeLessThan(1);
    expect(Math.abs(statSync(target).mtimeMs - old.getTime())).toBeLessThan(1);
  });

  /** The agent's move: the wait's doorbell (its heartbeat) replaced by a link to a file of its own. */
  const plantBell = (waiter: string): { bell: string; elsewhere: string } => {
    const bell = join(waiters(), waiter);
    const elsewhere = join(project.state, 'agent-file');
    writeFileSync(elsewhere, '');
    rmSync(bell);
    symlinkSync(elsewhere, bell);
    return { bell, elsewhere };
  };

  // The agent, outside a sandbox, can rewrite the doorbell: ringing it, or pointing it elsewhere,
  // only wakes the wait to look; what ends it is an answer the audit log vouches for.
  it('takes nothing from its doorbell: rung by the agent, or planted as a link, the wait ends only on a vouched answer', async () => {
    const p = q.enqueue(request());
    const { bell, elsewhere } = plantBell(p.waiter as string);
    let outcome: unknown = null;
    const wait = q.waitFor(p).then((r) => (outcome = r));
    for (let i = 0; i < 5; i++) {
      utimesSync(elsewhere, new Date(), new Date());
      lutimesSync(bell, new Date(), new Date());
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(outcome).toBeNull();
    // An answer written around the queue (no audit event), rung as the queue would ring it.
    writeFileSync(join(project.state, 'approvals', 'resolved', `${p.id}.json`), JSON.stringify({ id: p.id, decision: 'allow', reason: null, principal: alice, resolved_at: new Date().toISOString() }));
    lutimesSync(bell, new Date(), new Date());
    const r = await wait;
    expect(r).toMatchObject({ decision: 'reject' });
    expect(r.reason).toMatch(/not in the audit log/);
  });

  it('still hands a waiting hook its real answer when the doorbell was planted as a link (the poll finds it)', async () => {
    const p = q.enqueue(request());
    plantBell(p.waiter as string);
    const wait = q.waitFor(p);
    new ApprovalQueue(project.state).resolve(p.id, { decision: 'allow', principal: alice });
    expect(await wait).toMatchObject({ decision: 'allow', principal: { id: alice.id } });
  });
});
