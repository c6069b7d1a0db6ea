// Approvals over the WebSocket: the same queue as the HTTP API, resolutions named after the
// connection's principal, and `approvals.changed` events for subscribers.
import { afterEach, describe, expect, it } from 'vitest';
import type { Resolution } from '../../../src/runtime/approvals/index.js';
import { MAX_SUMMARY_CHARS } from '../../../src/runtime/approvals/record.js';
import { MAX_FRAME_BYTES, RPC_ERRORS } from '../../../src/gateway/ws/index.js';
import { decisionsFor, verifyProjectAudit } from '../../support/audit.js';
import { enqueue, SECRET, sha256Hex } from '../support.js';
import type { WsHarness } from './support.js';
import { operator, RpcClient, startWsHarness } from './support.js';

let h: WsHarness | undefined;
const clients: RpcClient[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await h?.close();
  h = undefined;
});

describe('approvals over the WebSocket', () => {
  it('resolves as dashboard-operator:<who started the server> for the access token, and the queue records it', async () => {
    h = await startWsHarness();
    const c = await operator(h, []);
    clients.push(c);
    const a = enqueue(h.queue);
    const { pending } = await c.ok<{ pending: { id: string; nonce: string }[] }>('approvals.list');
    expect(pending.map((p) => p.id)).toEqual([a.id]);
    const { resolution } = await c.ok<{ resolution: Resolution }>('approvals.resolve', { id: a.id, decision: 'allow', reason: 'looks fine', nonce: pending[0]?.nonce });
    expect(resolution.principal).toEqual({ id: 'dashboard-operator:ana', auth: 'access-token' });
    expect(h.queue.get(a.id).resolution).toMatchObject({ decision: 'allow', reason: 'looks fine', principal: { id: 'dashboard-operator:ana' } });
  });

  it('lists requests without their detail, and gives the detail of one by approvals.detail', async () => {
    h = await startWsHarness();
    const c = await operator(h, []);
    clients.push(c);
    const diff = '@@ -1,1 +1,1 @@\n-a\n+b\n'.repeat(1000);
    const a = h.queue.enqueue({
      session_id: 's1',
      agent: 'claude',
      tool: 'Edit',
      summary: 'Edit f',
      detail: { kind: 'diff', files: [{ path: 'f', diff, added: 1000, removed: 1000, note: null }], truncated: false },
      ttlSeconds: 60,
    });
    const { pending } = await c.ok<{ pending: Record<string, unknown>[] }>('approvals.list');
    expect(pending.map((p) => p.id)).toEqual([a.id]);
    expect(pending[0]).not.toHaveProperty('detail');
    const got = await c.ok<{ detail: unknown; answered: boolean }>('approvals.detail', { id: a.id });
    expect(got).toEqual({ id: a.id, detail: a.detail, answered: false });
    const missing = await c.call('approvals.detail', { id: 'ap-000000000-0123456789ab' });
    expect(missing.error).toMatchObject({ code: RPC_ERRORS.no_such_approval.code });
  });

  it('records approvals.resolve as one human_approval_decision by the connection principal, and the log verifies', async () => {
    h = await startWsHarness();
    const c = await operator(h, []);
    clients.push(c);
    const a = enqueue(h.queue);
    await c.ok('approvals.resolve', { id: a.id, decision: 'reject', reason: 'too broad', nonce: a.nonce });
    expect(decisionsFor(h.state, a.id)).toEqual([
      expect.objectContaining({ actor: 'dashboard-operator:ana', data: expect.objectContaining({ approval_id: a.id, decision: 'reject', auth: 'access-token', reason: 'too broad' }) }),
    ]);
    expect(verifyProjectAudit(h.state).ok).toBe(true);
  });

  it('names a scoped token holder as token:<name>', async () => {
    h = await startWsHarness({ tokens: [{ principal: 'alice', scopes: ['approvals:read', 'approvals:resolve'], sha256: sha256Hex(SECRET) }] });
    const c = await RpcClient.connect(h.url, { bearer: SECRET });
    clients.push(c);
    const a = enqueue(h.queue);
    await c.ok('approvals.resolve', { id: a.id, decision: 'reject', nonce: a.nonce });
    expect(h.queue.get(a.id).resolution?.principal.id).toBe('token:alice');
  });

  it('refuses a wrong nonce and a second answer with approval_refused and the queue code', async () => {
    h = await startWsHarness();
    const c = await operator(h, []);
    clients.push(c);
    const a = enqueue(h.queue);
    const wrong = await c.call('approvals.resolve', { id: a.id, decision: 'allow', nonce: '0'.repeat(32) });
    expect(wrong.error).toMatchObject({ code: RPC_ERRORS.approval_refused.code, data: { name: 'approval_refused', reason: 'nonce_mismatch' } });
    await c.ok('approvals.resolve', { id: a.id, decision: 'allow', nonce: a.nonce });
    const again = await c.call('approvals.resolve', { id: a.id, decision: 'reject', nonce: a.nonce });
    expect(again.error?.data.reason).toBe('already_resolved');
    expect((await c.call('approvals.resolve', { id: a.id, decision: 'maybe', nonce: a.nonce })).error?.code).toBe(RPC_ERRORS.invalid_params.code);
  });

  it('sends approvals.changed with the pending list to subscribers only', async () => {
    h = await startWsHarness();
    const subscribed = await operator(h, ['approvals.*']);
    const other = await operator(h, ['pty.*']);
    clients.push(subscribed, other);
    const a = enqueue(h.queue, 'sess-9', 'git push --force');
    const changed = await subscribed.waitEvent('approvals.changed', (e) => e.data.pending.some((p) => p.id === a.id));
    expect(changed.data.pending[0]).toMatchObject({ id: a.id, summary: 'git push --force', nonce: a.nonce });
    await subscribed.ok('approvals.resolve', { id: a.id, decision: 'allow', nonce: a.nonce });
    await subscribed.waitEvent('approvals.changed', (e) => e.data.pending.length === 0);
    expect(other.events.filter((e) => e.topic === 'approvals.changed')).toEqual([]);
  });
});

describe('a queue larger than a frame', () => {
  it('lists the oldest approvals that fit one frame and counts the rest', async () => {
    h = await startWsHarness();
    const c = await operator(h, []);
    clients.push(c);
    const queue = h.queue;
    for (let i = 0; i < 30; i++) enqueue(queue, `sess-${i}`, `${i} ${'s'.repeat(3990)}`);
    const ids = queue.list().map((p) => p.id);
    const { pending, omitted } = await c.ok<{ pending: { id: string }[]; omitted: number }>('approvals.list');
    expect(pending.length).toBeGreaterThan(5);
    expect(pending.length + omitted).toBe(30);
    expect(pending.map((p) => p.id)).toEqual(ids.slice(0, pending.length));
    expect(Math.max(...c.frameSizes)).toBeLessThanOrEqual(MAX_FRAME_BYTES);
  });

  it('always fits one approval with the longest summary of the widest characters, whole', async () => {
    h = await startWsHarness();
    const c = await operator(h, []);
    clients.push(c);
    // Three UTF-8 bytes each (U+FFFD is what unsafe characters become): the worst a summary can be.
    const summary = `${'\uFFFD'.repeat(MAX_SUMMARY_CHARS - 4)}tail`;
    const a = enqueue(h.queue, 'sess-1', summary);
    const { pending, omitted } = await c.ok<{ pending: { id: string; summary: string }[]; omitted: number }>('approvals.list');
    expect(omitted).toBe(0);
    expect(pending).toEqual([expect.objectContaining({ id: a.id, summary })]);
    expect(Math.max(...c.frameSizes)).toBeLessThanOrEqual(MAX_FRAME_BYTES);
  });
});
