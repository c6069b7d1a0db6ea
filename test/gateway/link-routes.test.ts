// The single-use approval page's API over a real gateway and queue: a link shows its one call,
// answers it once as link:<channel> (releasing the waiting hook, recorded in the audit log),
// and every later use is refused with 410. Behind --public-url, that URL's Host and origin are accepted.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addLinkRoutes } from '../../src/gateway/link-routes.js';
import { ApprovalQueue, type PendingApproval } from '../../src/runtime/approvals/index.js';
import { tempDir } from '../support/cli.js';
import { LinkBook } from '../../src/runtime/notify/links.js';
import { decisionsFor, verifyProjectAudit } from '../support/audit.js';
import type { Harness } from './support.js';
import { enqueue, errorCode, rawRequest, resolveVia, startHarness } from './support.js';

const PUBLIC_URL = 'https://gatehouse.example.com/';
let h: Harness;
let links: LinkBook;

beforeEach(async () => {
  links = new LinkBook();
  const state = tempDir('gh-links-');
  h = await startHarness({ projectState: state, publicUrl: PUBLIC_URL, routes: (router) => void addLinkRoutes(router, { queue: new ApprovalQueue(state), links, project: 'shop-api' }) });
});

afterEach(async () => {
  await h.gw.close();
});

function linkFor(p: PendingApproval, channel = 'ntfy'): string {
  return links.issue({ approvalId: p.id, channel, expiresAt: Date.parse(p.expires_at) });
}

function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${h.gw.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

describe('POST /api/link/view', () => {
  it('shows the one call, its nonce and its detail, but not who waits for it', async () => {
    const p = h.queue.enqueue({
      session_id: 's1',
      agent: 'claude',
      tool: 'Bash',
      summary: 'Bash: npm publish',
      why: 'It publishes.',
      detail: { kind: 'shell', command: 'npm publish', description: 'Publish', cwd: '/w', why: 'It publishes.', rule: 'r' },
      ttlSeconds: 600,
    });
    const res = await post('/api/link/view', { token: linkFor(p) });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = (await res.json()) as { project: string; channel: string; approval: Record<string, unknown> };
    expect(body).toMatchObject({ project: 'shop-api', channel: 'ntfy', approval: { id: p.id, nonce: p.nonce, summary: 'Bash: npm publish', detail: { kind: 'shell', command: 'npm publish' } } });
    expect(body.approval).not.toHaveProperty('pid');
    expect(body.approval).not.toHaveProperty('waiter');
  });

  it('refuses a token it never issued with 404, and a body that is not a token with 400', async () => {
    expect((await post('/api/link/view', { token: 'A'.repeat(43) })).status).toBe(404);
    const bad = await post('/api/link/view', { token: 1 });
    expect(bad.status).toBe(400);
  });

  it('says 410 once the call was answered elsewhere', async () => {
    const p = enqueue(h.queue);
    const token = linkFor(p);
    expect((await resolveVia(h.gw, p.id, { decision: 'reject', nonce: p.nonce })).status).toBe(200);
    const res = await post('/api/link/view', { token });
    expect(res.status).toBe(410);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain('dashboard-operator:ana answered reject');
  });
});

describe('POST /api/link/answer', () => {
  it('releases the waiting hook as link:<channel>, recorded in the audit log; a second use gets 410', async () => {
    const p = enqueue(h.queue);
    const token = linkFor(p, 'webhook-2');
    const waiting = h.queue.waitFor(p, {});
    const res = await post('/api/link/answer', { token, nonce: p.nonce, decision: 'allow', reason: 'fine from my phone' });
    expect(res.status).toBe(200);
    const resolution = await waiting;
    expect(resolution).toMatchObject({ decision: 'allow', reason: 'fine from my phone', principal: { id: 'link:webhook-2', auth: 'link' } });
    expect(decisionsFor(h.state, p.id)).toEqual([expect.objectContaining({ actor: 'link:webhook-2', data: expect.objectContaining({ decision: 'allow', auth: 'link' }) })]);
    expect(verifyProjectAudit(h.state).ok).toBe(true);
    const again = await post('/api/link/answer', { token, nonce: p.nonce, decision: 'reject' });
    expect(again.status).toBe(410);
    expect(await errorCode(again)).toBe('link_used');
    expect((await post('/api/link/view', { token })).status).toBe(410);
  });

  it('lets one of two answers sent at once through', async () => {
    const p = enqueue(h.queue);
    const token = linkFor(p);
    const both = await Promise.all([post('/api/link/answer', { token, nonce: p.nonce, decision: 'allow' }), post('/api/link/answer', { token, nonce: p.nonce, decision: 'reject' })]);
    expect(both.map((r) => r.status).sort()).toEqual([200, 410]);
    expect(decisionsFor(h.state, p.id)).toHaveLength(1);
  });

  it('answers only allow or reject: "always" makes rules, which needs the dashboard', async () => {
    const p = enqueue(h.queue);
    const res = await post('/api/link/answer', { token: linkFor(p), nonce: p.nonce, decision: 'always' });
    expect(res.status).toBe(400);
    expect(await errorCode(res)).toBe('bad_decision');
    expect(h.queue.get(p.id).resolution).toBeNull();
  });

  it('keeps the link usable when the nonce is stale: nothing was answered', async () => {
    const p = enqueue(h.queue);
    const token = linkFor(p);
    const stale = await post('/api/link/answer', { token, nonce: '0'.repeat(32), decision: 'allow' });
    expect(stale.status).toBe(409);
    expect((await post('/api/link/answer', { token, nonce: p.nonce, decision: 'reject' })).status).toBe(200);
  });

  it('cannot answer another call than its own', async () => {
    const mine = enqueue(h.queue);
    const other = enqueue(h.queue);
    const res = await post('/api/link/answer', { token: linkFor(mine), nonce: other.nonce, decision: 'allow' });
    expect(res.status).toBe(409);
    expect(h.queue.get(other.id).resolution).toBeNull();
    expect(h.queue.get(mine.id).resolution).toBeNull();
  });
});

describe('behind --public-url', () => {
  it("accepts the public URL's Host and origin, and still refuses any other", async () => {
    const p = enqueue(h.queue);
    const body = JSON.stringify({ token: linkFor(p) });
    const headers = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) };
    const through = await rawRequest(h.gw.port, { method: 'POST', path: '/api/link/view', headers: { ...headers, host: 'gatehouse.example.com', origin: 'https://gatehouse.example.com' }, body });
    expect(through.status).toBe(200);
    const foreignHost = await rawRequest(h.gw.port, { method: 'POST', path: '/api/link/view', headers: { ...headers, host: 'evil.example.com', origin: 'https://evil.example.com' }, body });
    expect(foreignHost.status).toBe(403);
    const foreignOrigin = await rawRequest(h.gw.port, { method: 'POST', path: '/api/link/view', headers: { ...headers, host: 'gatehouse.example.com', origin: 'https://evil.example.com' }, body });
    expect(foreignOrigin.status).toBe(403);
  });
});
