// The pasted-token sign-in over the real gateway on loopback: `POST /login {token}` sets the
// same HttpOnly strict cookie as the link, the cookie then opens HTTP routes and `/ws`, and
// a wrong, cross-site or non-JSON attempt sets nothing.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { addWebRoutes, TOKEN_COOKIE } from '../../src/gateway/web-routes.js';
import type { RawResponse } from './support.js';
import { rawRequest } from './support.js';
import type { WsHarness } from './ws/support.js';
import { ACCESS_TOKEN, startWsHarness } from './ws/support.js';

let web: string;
let h: WsHarness;

function post(body: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  const host = `127.0.0.1:${h.gw.port}`;
  return rawRequest(h.gw.port, { method: 'POST', path: '/login', body, headers: { host, 'content-type': 'application/json', origin: `http://${host}`, ...headers } });
}

beforeAll(async () => {
  web = mkdtempSync(join(tmpdir(), 'gh-sign-in-web-'));
  h = await startWsHarness({ routes: (r) => void addWebRoutes(r, { webDir: web, accessToken: ACCESS_TOKEN }) });
});

afterAll(async () => {
  await h.close();
  rmSync(web, { recursive: true, force: true });
});

describe('POST /login', () => {
  it('trades the pasted token for the HttpOnly strict cookie, uncached, with no token in the reply', async () => {
    const res = await post(JSON.stringify({ token: ACCESS_TOKEN }));
    expect(res.status).toBe(204);
    expect(res.headers['set-cookie']).toEqual([`${TOKEN_COOKIE}=${ACCESS_TOKEN}; HttpOnly; SameSite=Strict; Path=/`]);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toBe('');
  });

  it('gives a cookie that opens the scoped HTTP routes and the WebSocket', async () => {
    const res = await post(JSON.stringify({ token: ACCESS_TOKEN }));
    const cookie = (res.headers['set-cookie'] as string[])[0]?.split(';')[0] ?? '';
    const queue = await rawRequest(h.gw.port, { path: '/approvals/queue', headers: { host: `127.0.0.1:${h.gw.port}`, cookie } });
    expect(queue.status).toBe(200);
    const socket = new WebSocket(`ws://127.0.0.1:${h.gw.port}/ws`, { headers: { cookie, origin: h.gw.url } });
    const opened = await new Promise<boolean>((resolve) => {
      socket.on('open', () => resolve(true));
      socket.on('error', () => resolve(false));
      socket.on('unexpected-response', () => resolve(false));
    });
    socket.close();
    expect(opened).toBe(true);
  });

  it.each([
    ['a wrong token', JSON.stringify({ token: '0123456789abcdef0123456789abcdef' }), 401],
    ['the token less its last character', JSON.stringify({ token: ACCESS_TOKEN.slice(0, -1) }), 401],
    ['no token', JSON.stringify({}), 401],
    ['a token that is not a string', JSON.stringify({ token: 42 }), 401],
    ['a body that is not JSON', 'token=x', 400],
  ])('refuses %s and sets no cookie', async (_what, body, status) => {
    const res = await post(body);
    expect(res.status).toBe(status);
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(res.body).not.toContain(ACCESS_TOKEN);
  });

  it('refuses a form post (what a cross-site page could send) and a request from another site', async () => {
    const form = await post(`token=${ACCESS_TOKEN}`, { 'content-type': 'application/x-www-form-urlencoded' });
    expect(form.status).toBe(415);
    expect(form.headers['set-cookie']).toBeUndefined();
    const cross = await post(JSON.stringify({ token: ACCESS_TOKEN }), { origin: 'http://evil.example' });
    expect(cross.status).toBe(403);
    expect(cross.headers['set-cookie']).toBeUndefined();
  });

  it('says where to find the token when it is wrong', async () => {
    const res = await post(JSON.stringify({ token: 'nope' }));
    expect(JSON.parse(res.body)).toMatchObject({ error: { code: 'unauthorized', message: expect.stringContaining('gatehouse serve') } });
  });
});
