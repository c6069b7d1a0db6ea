// The approvals HTTP API over a real server and a real queue: listing, resolving, and
// every refusal a client can cause, each with its status and error code.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PendingApproval, Resolution } from '../../src/runtime/approvals/index.js';
import { ApprovalQueue } from '../../src/runtime/approvals/index.js';
import { MAX_BODY_BYTES } from '../../src/gateway/approvals-routes.js';
import { decisionsFor, verifyProjectAudit } from '../support/audit.js';
import type { Harness } from './support.js';
import { enqueue, errorCode, getVia, OPERATOR, rawRequest, resolveVia, startHarness } from './support.js';

let h: Harness;

beforeEach(async () => {
  h = await startHarness();
});

afterEach(async () => {
  await h.gw.close();
});

describe('GET /approvals/queue', () => {
  it('lists the pending approvals, nonce included, as uncacheable JSON', async () => {
    const a = enqueue(h.queue, 'sess-1');
    const b = enqueue(h.queue, 'sess-2');
    const res = await getVia(h.gw, '/approvals/queue');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = (await res.json()) as { pending: PendingApproval[] };
    expect(body.pending.map((p) => p.id).sort()).toEqual([a.id, b.id].sort());
    expect(body.pending.find((p) => p.id === a.id)).toEqual(a);
  });

  it('filters by ?session=', async () => {
    enqueue(h.queue, 'sess-1');
    const b = enqueue(h.queue, 'sess-2');
    const body = (await (await getVia(h.gw, '/approvals/queue?session=sess-2')).json()) as { pending: PendingApproval[] };
    expect(body.pending.map((p) => p.id)).toEqual([b.id]);
  });

  it('refuses a session filter that is not a session id with 400', async () => {
    const res = await getVia(h.gw, '/approvals/queue?session=..%2Fetc');
    expect(res.status).toBe(400);
    expect(await errorCode(res)).toBe('bad_session');
  });

  it('drops resolved approvals from the list', async () => {
    const a = enqueue(h.queue);
    expect((await resolveVia(h.gw, a.id, { decision: 'allow', nonce: a.nonce })).status).toBe(200);
    const body = (await (await getVia(h.gw, '/approvals/queue')).json()) as { pending: PendingApproval[] };
    expect(body.pending).toEqual([]);
  });
});

describe('POST /approvals/{id}/resolve', () => {
  it.each(['allow', 'reject', 'always'] as const)('resolves with decision %s and records the access token’s holder as principal', async (decision) => {
    const a = enqueue(h.queue);
    const res = await resolveVia(h.gw, a.id, { decision, nonce: a.nonce, reason: 'looked fine' });
    expect(res.status).toBe(200);
    const { resolution } = (await res.json()) as { resolution: Resolution };
    expect(resolution).toMatchObject({ id: a.id, decision, reason: 'looked fine', principal: { id: 'dashboard-operator:ana', auth: 'access-token' } });
    expect(h.queue.get(a.id).resolution).toEqual(resolution);
  });

  it('records the resolution as one human_approval_decision by the caller, and the log verifies', async () => {
    const a = enqueue(h.queue);
    expect((await resolveVia(h.gw, a.id, { decision: 'always', nonce: a.nonce })).status).toBe(200);
    expect((await resolveVia(h.gw, a.id, { decision: 'reject', nonce: a.nonce })).status).toBe(410);
    expect(decisionsFor(h.state, a.id)).toEqual([
      expect.objectContaining({
        actor: 'dashboard-operator:ana',
        session_id: 'sess-1',
        data: expect.objectContaining({ approval_id: a.id, decision: 'always', decided_by: 'dashboard-operator:ana' }),
      }),
    ]);
    expect(verifyProjectAudit(h.state).ok).toBe(true);
  });

  it('refuses an id that is not an approval id (a path escape) with 400 and touches nothing', async () => {
    const res = await resolveVia(h.gw, '..%2Fx', { decision: 'allow', nonce: 'x' });
    expect(res.status).toBe(400);
    expect(await errorCode(res)).toBe('bad_id');
  });

  it('refuses an id that is not valid percent-encoding with 400', async () => {
    const res = await resolveVia(h.gw, '%E0%A4%A', { decision: 'allow', nonce: 'x' });
    expect(res.status).toBe(400);
    expect(await errorCode(res)).toBe('bad_id');
  });

  it('refuses a body that is not JSON with 400', async () => {
    const a = enqueue(h.queue);
    const res = await resolveVia(h.gw, a.id, '{"decision": "allow",');
    expect(res.status).toBe(400);
    expect(await errorCode(res)).toBe('bad_json');
    expect(h.queue.get(a.id).resolution).toBeNull();
  });

  it('refuses a JSON body that is not an object with 400', async () => {
    const a = enqueue(h.queue);
    const res = await resolveVia(h.gw, a.id, '["allow"]');
    expect(res.status).toBe(400);
    expect(await errorCode(res)).toBe('bad_request');
  });

  it('refuses an unknown decision with 400', async () => {
    const a = enqueue(h.queue);
    const res = await resolveVia(h.gw, a.id, { decision: 'maybe', nonce: a.nonce });
    expect(res.status).toBe(400);
    expect(await errorCode(res)).toBe('bad_decision');
    expect(h.queue.get(a.id).resolution).toBeNull();
  });

  it('refuses a resolve without a nonce with 400', async () => {
    const a = enqueue(h.queue);
    const res = await resolveVia(h.gw, a.id, { decision: 'allow' });
    expect(res.status).toBe(400);
    expect(await errorCode(res)).toBe('missing_nonce');
    expect(h.queue.get(a.id).resolution).toBeNull();
  });

  it('refuses a reason that is not text with 400', async () => {
    const a = enqueue(h.queue);
    const res = await resolveVia(h.gw, a.id, { decision: 'allow', nonce: a.nonce, reason: 42 });
    expect(res.status).toBe(400);
    expect(await errorCode(res)).toBe('bad_reason');
    expect(h.queue.get(a.id).resolution).toBeNull();
  });

  it('answers 410 to a resolve that arrives after the approval expired, which the queue records as a denial', async () => {
    const hourAgo = new ApprovalQueue(h.state, () => new Date(Date.now() - 3_600_000));
    const a = enqueue(hourAgo);
    const res = await resolveVia(h.gw, a.id, { decision: 'allow', nonce: a.nonce });
    expect(res.status).toBe(410);
    expect(h.queue.get(a.id).resolution).toMatchObject({ decision: 'reject', expired: true });
  });

  it('refuses a body that is not declared as JSON with 415', async () => {
    const a = enqueue(h.queue);
    const res = await fetch(`${h.gw.url}/approvals/${a.id}/resolve`, {
      method: 'POST',
      headers: { ...OPERATOR, 'content-type': 'text/plain' },
      body: JSON.stringify({ decision: 'allow', nonce: a.nonce }),
    });
    expect(res.status).toBe(415);
    expect(h.queue.get(a.id).resolution).toBeNull();
  });

  it('answers 404 for a well-formed id the queue does not know', async () => {
    const res = await resolveVia(h.gw, 'ap-000000000-0123456789ab', { decision: 'allow', nonce: '0'.repeat(32) });
    expect(res.status).toBe(404);
    expect(await errorCode(res)).toBe('not_found');
  });

  it('refuses a nonce that does not match the record with 409', async () => {
    const a = enqueue(h.queue);
    const res = await resolveVia(h.gw, a.id, { decision: 'allow', nonce: 'f'.repeat(32) });
    expect(res.status).toBe(409);
    expect(await errorCode(res)).toBe('nonce_mismatch');
    expect(h.queue.get(a.id).resolution).toBeNull();
  });

  it('answers 410 to a second resolve and keeps the first answer', async () => {
    const a = enqueue(h.queue);
    expect((await resolveVia(h.gw, a.id, { decision: 'reject', nonce: a.nonce })).status).toBe(200);
    const second = await resolveVia(h.gw, a.id, { decision: 'allow', nonce: a.nonce });
    expect(second.status).toBe(410);
    expect(await errorCode(second)).toBe('already_resolved');
    expect(h.queue.get(a.id).resolution?.decision).toBe('reject');
  });

  it('refuses a body over the cap with 413 (declared length)', async () => {
    const a = enqueue(h.queue);
    const res = await resolveVia(h.gw, a.id, { decision: 'allow', nonce: a.nonce, reason: 'x'.repeat(MAX_BODY_BYTES) });
    expect(res.status).toBe(413);
    expect(await errorCode(res)).toBe('body_too_large');
    expect(h.queue.get(a.id).resolution).toBeNull();
  });

  it('refuses a chunked body over the cap with 413 without reading it all', async () => {
    const a = enqueue(h.queue);
    const chunk = Buffer.alloc(16 * 1024, 0x20);
    const res = await rawRequest(h.gw.port, {
      method: 'POST',
      path: `/approvals/${a.id}/resolve`,
      headers: { ...OPERATOR, host: `127.0.0.1:${h.gw.port}`, 'content-type': 'application/json' },
      body: Array.from({ length: 6 }, () => chunk),
    });
    expect(res.status).toBe(413);
    expect(h.queue.get(a.id).resolution).toBeNull();
  });

  it('lets exactly one of many concurrent resolves of one id win', async () => {
    const a = enqueue(h.queue);
    const decisions = ['allow', 'reject', 'always', 'allow', 'reject', 'always', 'allow', 'reject'] as const;
    const responses = await Promise.all(decisions.map((decision) => resolveVia(h.gw, a.id, { decision, nonce: a.nonce })));
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 410)).toHaveLength(decisions.length - 1);
    const winner = responses.find((r) => r.status === 200);
    const { resolution } = (await winner?.json()) as { resolution: Resolution };
    expect(h.queue.get(a.id).resolution).toEqual(resolution);
  });
});

describe('routing', () => {
  it('answers GET /healthz with 200', async () => {
    const res = await fetch(`${h.gw.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
  });

  it('answers a wrong method with 405 and an Allow header', async () => {
    const res = await fetch(`${h.gw.url}/approvals/queue`, { method: 'DELETE' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET');
    expect(await errorCode(res)).toBe('method_not_allowed');
    const get = await fetch(`${h.gw.url}/approvals/ap-000000000-0123456789ab/resolve`);
    expect(get.status).toBe(405);
  });

  it('answers an unknown path with a JSON 404', async () => {
    const res = await fetch(`${h.gw.url}/nope`);
    expect(res.status).toBe(404);
    expect(await errorCode(res)).toBe('not_found');
  });
});
