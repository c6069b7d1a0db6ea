// Who may call the approvals API: scoped bearer tokens (by hash or env var), and without
// tokens only a loopback page on our port; Host and Origin are checked on every request.
import { afterEach, describe, expect, it } from 'vitest';
import type { Resolution } from '../../src/runtime/approvals/index.js';
import type { ScopedToken } from '../../src/gateway/options.js';
import type { Harness } from './support.js';
import { enqueue, errorCode, OTHER_SECRET, rawRequest, resolveVia, SECRET, sha256Hex, startHarness } from './support.js';

const TOKENS: ScopedToken[] = [
  { principal: 'alice', scopes: ['approvals:read', 'approvals:resolve'], sha256: sha256Hex(SECRET) },
  { principal: 'ci-reader', scopes: ['approvals:read'], sha256: sha256Hex(OTHER_SECRET) },
];
const bearer = (secret: string): Record<string, string> => ({ authorization: `Bearer ${secret}` });

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
  });

  it('answers 401 to a request without a token and resolves nothing', async () => {
    h = await startHarness({ tokens: TOKENS });
    const a = enqueue(h.queue);
    const res = await resolveVia(h.gw, a.id, { decision: 'allow', nonce: a.nonce });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(await errorCode(res)).toBe('unauthorized');
    expect(h.queue.get(a.id).resolution).toBeNull();
    expect((await fetch(`${h.gw.url}/approvals/queue`)).status).toBe(401);
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
    expect((await fetch(`${h.gw.url}/approvals/queue`, { headers: bearer(OTHER_SECRET) })).status).toBe(200);
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
    await expect(startHarness({ tokens: [{ principal: 'bob', scopes: ['approvals:read'], env: 'GATEHOUSE_UNSET_VAR' }], env: {} })).rejects.toThrow(
      /GATEHOUSE_UNSET_VAR/,
    );
  });

  it('still refuses a foreign Host header when tokens are configured', async () => {
    h = await startHarness({ tokens: TOKENS });
    const res = await rawRequest(h.gw.port, { path: '/approvals/queue', headers: { host: `evil.example:${h.gw.port}`, ...bearer(SECRET) } });
    expect(res.status).toBe(403);
    expect(JSON.parse(res.body)).toMatchObject({ error: { code: 'bad_host' } });
  });
});

describe('loopback posture (no tokens)', () => {
  it('names the caller dashboard-operator over loopback', async () => {
    h = await startHarness();
    const a = enqueue(h.queue);
    const res = await resolveVia(h.gw, a.id, { decision: 'allow', nonce: a.nonce }, { origin: h.gw.url });
    expect(res.status).toBe(200);
    expect(h.queue.get(a.id).resolution?.principal).toEqual({ id: 'dashboard-operator', auth: 'loopback' });
  });

  it.each(['localhost', '127.0.0.1', '[::1]'])('accepts the loopback Host %s:<port>', async (name) => {
    h = await startHarness();
    const res = await rawRequest(h.gw.port, { path: '/approvals/queue', headers: { host: `${name}:${h.gw.port}` } });
    expect(res.status).toBe(200);
  });

  it('refuses a foreign Host header (DNS rebinding) with 403 and resolves nothing', async () => {
    h = await startHarness();
    const a = enqueue(h.queue);
    const port = h.gw.port;
    for (const host of [`evil.example:${port}`, 'evil.example', `localhost.evil.example:${port}`, `127.0.0.1:${port + 1}`, `localhost:${port}@evil`]) {
      const res = await rawRequest(port, {
        method: 'POST',
        path: `/approvals/${a.id}/resolve`,
        headers: { host, 'content-type': 'application/json' },
        body: JSON.stringify({ decision: 'allow', nonce: a.nonce }),
      });
      expect(res.status, host).toBe(403);
      expect(JSON.parse(res.body)).toMatchObject({ error: { code: 'bad_host' } });
    }
    expect((await rawRequest(port, { path: '/healthz', headers: { host: `evil.example:${port}` } })).status).toBe(403);
    expect(h.queue.get(a.id).resolution).toBeNull();
  });

  it('refuses a cross-site Origin with 403 and resolves nothing', async () => {
    h = await startHarness();
    const a = enqueue(h.queue);
    const port = h.gw.port;
    for (const origin of ['http://evil.example', `http://evil.example:${port}`, `http://localhost:${port + 1}`, 'null', `https://localhost:${port}`]) {
      const res = await resolveVia(h.gw, a.id, { decision: 'allow', nonce: a.nonce }, { origin });
      expect(res.status, origin).toBe(403);
      expect(await errorCode(res)).toBe('bad_origin');
    }
    expect(h.queue.get(a.id).resolution).toBeNull();
  });

  it('accepts the loopback origins of its own port', async () => {
    h = await startHarness();
    for (const origin of [`http://127.0.0.1:${h.gw.port}`, `http://localhost:${h.gw.port}`, `http://[::1]:${h.gw.port}`]) {
      const res = await fetch(`${h.gw.url}/approvals/queue`, { headers: { origin } });
      expect(res.status, origin).toBe(200);
    }
  });

  it('refuses a request a browser marks as cross-site', async () => {
    h = await startHarness();
    const res = await fetch(`${h.gw.url}/approvals/queue`, { headers: { 'sec-fetch-site': 'cross-site' } });
    expect(res.status).toBe(403);
  });
});
