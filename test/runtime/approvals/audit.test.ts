// Every resolution the queue writes is one `human_approval_decision` audit event, recorded
// where the answer is made (not by the waiting hook), and the log still verifies.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApprovalQueue, SWEEPER_PRINCIPAL, TTL_EXPIRY_PRINCIPAL } from '../../../src/runtime/approvals/index.js';
import { auditEvents, decisionsFor, verifyProjectAudit } from '../../support/audit.js';
import { alice, request, tempProject, tokenBob } from './helpers.js';

let project: ReturnType<typeof tempProject>;
let q: ApprovalQueue;
beforeEach(() => {
  project = tempProject();
  q = new ApprovalQueue(project.state);
});
afterEach(() => project.dispose());

const resolvedFile = (id: string): string => join(project.state, 'approvals', 'resolved', `${id}.json`);

describe('the queue records each resolution', () => {
  it('as one event with the resolver as actor, though no hook is waiting for it', () => {
    const p = q.enqueue(request({ session_id: 'sess-9', tool: 'Bash' }));
    expect(q.resolve(p.id, { decision: 'reject', reason: 'not today', principal: alice }).ok).toBe(true);
    expect(decisionsFor(project.state, p.id)).toEqual([
      expect.objectContaining({
        actor: 'os-user:alice',
        session_id: 'sess-9',
        data: { approval_id: p.id, tool: 'Bash', decision: 'reject', decided_by: 'os-user:alice', auth: 'local-shell', reason: 'not today' },
      }),
    ]);
    expect(verifyProjectAudit(project.state)).toMatchObject({ ok: true, events: 1 });
  });

  it('once, however many resolvers race for it; the losers record nothing', () => {
    const p = q.enqueue(request());
    const results = [alice, tokenBob, alice].map((principal) => q.resolve(p.id, { decision: 'allow', principal, ...(principal === tokenBob ? { nonce: p.nonce } : {}) }));
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(decisionsFor(project.state, p.id)).toHaveLength(1);
    expect(verifyProjectAudit(project.state).ok).toBe(true);
  });

  it('a late answer as the expiry denial, by system:approval-queue/ttl-expiry', () => {
    const p = q.enqueue(request({ ttlSeconds: 1 }));
    const late = new ApprovalQueue(project.state, () => new Date(Date.parse(p.expires_at) + 1));
    expect(late.resolve(p.id, { decision: 'allow', principal: alice })).toMatchObject({ ok: false, error: { code: 'already_resolved' } });
    expect(decisionsFor(project.state, p.id)).toEqual([expect.objectContaining({ actor: TTL_EXPIRY_PRINCIPAL.id, data: expect.objectContaining({ decision: 'reject', auth: 'server-internal' }) })]);
  });

  it('the expiry a waiting hook reaches, once, however often it is asked again', async () => {
    const p = q.enqueue(request({ ttlSeconds: 1 }));
    const late = new ApprovalQueue(project.state, () => new Date(Date.parse(p.expires_at) + 1));
    const first = await late.waitFor(p.id);
    expect(await late.waitFor(p.id)).toEqual(first);
    expect(late.sweep()).toBe(0);
    expect(decisionsFor(project.state, p.id)).toEqual([expect.objectContaining({ actor: TTL_EXPIRY_PRINCIPAL.id })]);
    expect(verifyProjectAudit(project.state).ok).toBe(true);
  });

  it("the sweeper's denials, by system:approval-queue/sweeper", () => {
    const p = q.enqueue(request({ ttlSeconds: 5 }));
    const later = new ApprovalQueue(project.state, () => new Date(Date.parse(p.expires_at) + 1));
    expect(later.sweep()).toBe(1);
    expect(decisionsFor(project.state, p.id)).toEqual([expect.objectContaining({ actor: SWEEPER_PRINCIPAL.id, data: expect.objectContaining({ decision: 'reject' }) })]);
  });

  it('the denial a hook acts on when the answer on file is corrupt', async () => {
    const p = q.enqueue(request());
    mkdirSync(join(project.state, 'approvals', 'resolved'), { recursive: true });
    writeFileSync(resolvedFile(p.id), '{"id":');
    expect(await q.waitFor(p.id)).toMatchObject({ decision: 'reject' });
    expect(decisionsFor(project.state, p.id)).toEqual([expect.objectContaining({ actor: 'system:approval-queue/corrupt-record' })]);
  });
});

describe('a waiting hook acts only on answers the audit log records', () => {
  it('denies an allow written straight to the resolved folder, and records that denial', async () => {
    const p = q.enqueue(request());
    mkdirSync(join(project.state, 'approvals', 'resolved'), { recursive: true });
    // Well-formed, but not given through the queue: what a process writing the file itself leaves.
    writeFileSync(resolvedFile(p.id), JSON.stringify({ id: p.id, decision: 'allow', reason: null, principal: alice, resolved_at: new Date().toISOString() }));
    expect(await q.waitFor(p.id)).toMatchObject({ decision: 'reject', principal: { id: 'system:approval-queue/corrupt-record' }, reason: expect.stringMatching(/not in the audit log/) });
    expect(decisionsFor(project.state, p.id).map((e) => [e.actor, e.data.decision])).toEqual([['system:approval-queue/corrupt-record', 'reject']]);
  });

  it('acts on an answer given through the queue, found however far back in the log', async () => {
    const p = q.enqueue(request());
    expect(q.resolve(p.id, { decision: 'allow', principal: alice }).ok).toBe(true);
    // More events after it than the hook reads from the end of the log first.
    for (let i = 0; i < 300; i++) q.resolve(q.enqueue(request()).id, { decision: 'reject', principal: alice });
    expect(await q.waitFor(p.id)).toMatchObject({ decision: 'allow', principal: alice });
  });
});

describe('when the audit log cannot record', () => {
  it('refuses the answer, leaves the request open, and takes it once the log is repaired', () => {
    const p = q.enqueue(request());
    const log = join(project.state, 'audit', 'log.jsonl');
    mkdirSync(join(project.state, 'audit'), { recursive: true });
    // A complete line that is no event: the chain cannot be continued until someone looks.
    writeFileSync(log, 'not an event\n');
    const r = q.resolve(p.id, { decision: 'allow', principal: alice });
    expect(r).toMatchObject({ ok: false, error: { code: 'not_recorded', message: expect.stringMatching(/still open.*gatehouse audit verify/) } });
    expect(existsSync(resolvedFile(p.id))).toBe(false);
    expect(q.list().map((x) => x.id)).toEqual([p.id]);

    writeFileSync(log, '');
    expect(q.resolve(p.id, { decision: 'allow', principal: alice }).ok).toBe(true);
    expect(auditEvents(project.state).filter((e) => e.type === 'human_approval_decision')).toHaveLength(1);
  });
});
