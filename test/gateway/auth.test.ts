// Who may call the approvals API: the server's access token (bearer or the dashboard's
// cookie) or a scoped token, on loopback too; Host and Origin are checked on every request.
import { afterEach, describe, expect, it } from 'vitest';
import type { Resolution } from '../../src/runtime/approvals/index.js';
import { addAuditRoutes } from '../../src/gateway/audit-routes.js';
import { addHookRoutes } from '../../src/gateway/hook-routes.js';
import type { ScopedToken } from '../../src/gateway/options.js';
import { startGateway } from '../../src/gateway/server.js';
import { ApprovalQueue } from '../../src/runtime/approvals/index.js';
import { osUserName } from '../../src/runtime/recorder.js';
import { decisionsFor } from '../support/audit.js';
import { tempDir } from '../support/cli.js';
import type { Harness } from './support.js';
import { ACCESS_TOKEN, bearer, enqueue, errorCode, getVia, OPERATOR, OTHER_SECRET, rawRequest, resolveVia, SECRET, sha256Hex, startHarness } from './support.js';

const TOKENS: ScopedToken[] = [
  { principal: 'alice', scopes: ['approvals:read', 'approvals:resolve'], sha256: sha256Hex(SECRET) },
  { principal: 'ci-reader', scopes: ['approvals:read'], sha256: sha256Hex(OTHER_SECRET) },
];

let h: Harness | undefined;

afterEach(async () => {
  await h?.gw.close();
  h = undefined;
});

describe('scoped tokens', () => {
  it('resolves with a valid token and records token:<name> as the principal', async () => {
    h = await startHarness({ tokens: TOKENS });
    const a = enqueue(h.queue);
    const res = await resolveVia(h.gw, a.id, { decision: 'allow', nonce: a.nonce }, bearer(SECRET));
    expect(res.status).toBe(200);
    const { resolution } = (await res.json()) as { resolution: Resolution };
    expect(resolution.principal).toEqual({ id: 'token:alice', auth: 'scoped-token', grant: 'alice' });
    expect(h.queue.get(a.id).resolution?.principal.id).toBe('token:alice');
    expect(decisionsFor(h.state, a.id).map((e) => e.actor)).toEqual(['token:alice']);
  });

  it('answers 401 to a request without a token and resolves nothing', async () => {
    h = await startHarness({ tokens: TOKENS });
    const a = enqueue(h.queue);
    const res = await resolveVia(h.gw, a.id, { decision: 'allow', nonce: a.nonce }, {});
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(await errorCode(res)).toBe('unauthorized');
    expect(h.queue.get(a.id).resolution).toBeNull();
    expect((await getVia(h.gw, '/approvals/queue', {})).status).toBe(401);
  });

  it('answers 401 to a wrong token and resolves nothing', async () => {
    h = await startHarness({ tokens: TOKENS });
    const a = enqueue(h.queue);
    for (const auth of [bearer('not-the-secret'), bearer(sha256Hex(SECRET)), { authorization: `Basic ${SECRET}` }]) {
      const res = await resolveVia(h.gw, a.id, { decision: 'allow', nonce: a.nonce }, auth);
      expect(res.status).toBe(401);
    }
    expect(h.queue.get(a.id).resolution).toBeNull();
  });

  it('answers 403 when the token lacks the scope, and 200 where it has it', async () => {
    h = await startHarness({ tokens: TOKENS });
    const a = enqueue(h.queue);
    const res = await resolveVia(h.gw, a.id, { decision: 'allow', nonce: a.nonce }, bearer(OTHER_SECRET));
    expect(res.status).toBe(403);
    expect(await errorCode(res)).toBe('insufficient_scope');
    expect(h.queue.get(a.id).resolution).toBeNull();
    expect((await getVia(h.gw, '/approvals/queue', bearer(OTHER_SECRET))).status).toBe(200);
  });

  it('accepts a token whose secret comes from an environment variable', async () => {
    const env = { GATEHOUSE_TEST_TOKEN: SECRET };
    h = await startHarness({ tokens: [{ principal: 'bob', scopes: ['approvals:resolve'], env: 'GATEHOUSE_TEST_TOKEN' }], env });
    const a = enqueue(h.queue);
    const res = await resolveVia(h.gw, a.id, { decision: 'reject', nonce: a.nonce }, bearer(SECRET));
    expect(res.status).toBe(200);
    expect(h.queue.get(a.id).resolution?.principal.id).toBe('token:bob');
  });

  it('refuses to start when an env token variable is unset', async () => {
    await expect(startHarness({ tokens: [{ principal: 'bob', scopes: ['approvals:read'], env: 'GATEHOUSE_UNSET_VAR' }], env: {} })).rejects.toThrow(/GATEHOUSE_UNSET_VAR/);
  });

  it('still refuses a foreign Host header when tokens are configured', async () => {
    h = await startHarness({ tokens: TOKENS });
    const res = await rawRequest(h.gw.port, { path: '/approvals/queue', headers: { host: `evil.example:${h.gw.port}`, ...bearer(SECRET) } });
    expect(res.status).toBe(403);
    expect(JSON.parse(res.body)).toMatchObject({ error: { code: 'bad_host' } });
  });
});

describe('the access token', () => {
  it('resolves as dashboard-operator:<who started the server> with the access token as a bearer', async () => {
    h = await startHarness();
    const a = enqueue(h.queue);
    const res = await resolveVia(h.gw, a.id, { decision: 'allow', nonce: a.nonce }, { ...OPERATOR, origin: h.gw.url });
    expect(res.status).toBe(200);
    expect(h.queue.get(a.id).resolution?.principal).toEqual({ id: 'dashboard-operator:ana', auth: 'access-token' });
  });

  it('names the OS user running the server when no operator name is given', async () => {
    const state = tempDir('gh-gateway-');
    const gw = await startGateway({ projectState: state, host: '127.0.0.1', port: 0, accessToken: ACCESS_TOKEN, tokens: [], log: () => {} });
    h = { gw, queue: new ApprovalQueue(state), state };
    const a = enqueue(h.queue);
    expect((await resolveVia(h.gw, a.id, { decision: 'allow', nonce: a.nonce })).status).toBe(200);
    expect(h.queue.get(a.id).resolution?.principal).toEqual({ id: `dashboard-operator:${osUserName()}`, auth: 'access-token' });
  });

  it('resolves with the dashboard cookie, as the page does', async () => {
    h = await startHarness();
    const a = enqueue(h.queue);
    const res = await resolveVia(h.gw, a.id, { decision: 'reject', nonce: a.nonce }, { cookie: `other=1; gatehouse_token=${ACCESS_TOKEN}`, origin: h.gw.url });
    expect(res.status).toBe(200);
    expect(h.queue.get(a.id).resolution?.decision).toBe('reject');
  });

  it('answers 401 to a loopback caller with no credential, nonce in hand, and resolves nothing', async () => {
    const state = tempDir('gh-gateway-');
    h = await startHarness({ projectState: state, routes: (r) => void addHookRoutes(addAuditRoutes(r, state), state) });
    const a = enqueue(h.queue);
    // What a local process can do with curl: it read the nonce from the pending record.
    const res = await resolveVia(h.gw, a.id, { decision: 'allow', nonce: a.nonce }, {});
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="gatehouse"');
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('unauthorized');
    expect(body.error.message).toMatch(/Authorization: Bearer <access token>/);
    expect(h.queue.get(a.id).resolution).toBeNull();
    for (const path of ['/approvals/queue', '/api/hooks/stats', '/api/audit/status']) {
      expect((await getVia(h.gw, path, { origin: h.gw.url })).status, path).toBe(401);
      expect((await getVia(h.gw, path)).status, path).toBe(200);
    }
  });

  it('answers 401 to a wrong bearer, a cookie from an earlier start, or another scheme', async () => {
    h = await startHarness();
    const a = enqueue(h.queue);
    for (const headers of [
      bearer('not-the-access-token-at-all'),
      { cookie: 'gatehouse_token=stale-token-0123456789abcdef' },
      { authorization: `Basic ${ACCESS_TOKEN}` },
      { authorization: 'Bearer' },
    ]) {
      const res = await resolveVia(h.gw, a.id, { decision: 'allow', nonce: a.nonce }, headers);
      expect(res.status, JSON.stringify(headers)).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/invalid_token/);
    }
    expect(h.queue.get(a.id).resolution).toBeNull();
  });

  it('still works when scoped tokens are configured, so the dashboard keeps working', async () => {
    h = await startHarness({ tokens: TOKENS });
    const a = enqueue(h.queue);
    const res = await resolveVia(h.gw, a.id, { decision: 'allow', nonce: a.nonce });
    expect(res.status).toBe(200);
    expect(h.queue.get(a.id).resolution?.principal.id).toBe('dashboard-operator:ana');
    const none = await resolveVia(h.gw, enqueue(h.queue).id, { decision: 'allow', nonce: a.nonce }, {});
    expect(((await none.json()) as { error: { message: string } }).error.message).toMatch(/or a scoped token/);
  });

  it.each(['localhost', '127.0.0.1', '[::1]'])('accepts the loopback Host %s:<port>', async (name) => {
    h = await startHarness();
    const res = await rawRequest(h.gw.port, { path: '/approvals/queue', headers: { ...OPERATOR, host: `${name}:${h.gw.port}` } });
    expect(res.status).toBe(200);
  });

  it('refuses a foreign Host header (DNS rebinding) with 403 and resolves nothing, token or not', async () => {
    h = await startHarness();
    const a = enqueue(h.queue);
    const port = h.gw.port;
    for (const host of [`evil.example:${port}`, 'evil.example', `localhost.evil.example:${port}`, `127.0.0.1:${port + 1}`, `localhost:${port}@evil`]) {
      const res = await rawRequest(port, {
        method: 'POST',
        path: `/approvals/${a.id}/resolve`,
        headers: { ...OPERATOR, host, 'content-type': 'application/json' },
        body: JSON.stringify({ decision: 'allow', nonce: a.nonce }),
      });
      expect(res.status, host).toBe(403);
      expect(JSON.parse(res.body)).toMatchObject({ error: { code: 'bad_host' } });
    }
    expect((await rawRequest(port, { path: '/healthz', headers: { host: `evil.example:${port}` } })).status).toBe(403);
    expect(h.queue.get(a.id).resolution).toBeNull();
  });

  it('refuses a cross-site Origin with 403 and resolves nothing, even carrying the cookie', async () => {
    h = await startHarness();
    const a = enqueue(h.queue);
    const port = h.gw.port;
    for (const origin of ['http://evil.example', `http://evil.example:${port}`, `http://localhost:${port + 1}`, 'null', `https://localhost:${port}`]) {
      const res = await resolveVia(h.gw, a.id, { decision: 'allow', nonce: a.nonce }, { cookie: `gatehouse_token=${ACCESS_TOKEN}`, origin });
      expect(res.status, origin).toBe(403);
      expect(await errorCode(res)).toBe('bad_origin');
    }
    expect(h.queue.get(a.id).resolution).toBeNull();
  });

  it('accepts the loopback origins of its own port', async () => {
    h = await startHarness();
    for (const origin of [`http://127.0.0.1:${h.gw.port}`, `http://localhost:${h.gw.port}`, `http://[::1]:${h.gw.port}`]) {
      const res = await getVia(h.gw, '/approvals/queue', { ...OPERATOR, origin });
      expect(res.status, origin).toBe(200);
    }
  });

  it('refuses a request a browser marks as cross-site', async () => {
    h = await startHarness();
    const res = await getVia(h.gw, '/approvals/queue', { ...OPERATOR, 'sec-fetch-site': 'cross-site' });
    expect(res.status).toBe(403);
  });
});
