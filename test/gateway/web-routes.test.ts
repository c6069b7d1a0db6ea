// The dashboard's HTTP side over a real server: the built files with their content types
// and security headers, and the sign-in link that trades `?token=` for a cookie.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { agentPrograms } from '../../src/adapters/agent-programs.js';
import { Router } from '../../src/gateway/router.js';
import { addWebRoutes, DASHBOARD_CSP, TOKEN_COOKIE } from '../../src/gateway/web-routes.js';
import type { DashboardServer } from '../web/support.js';
import { startDashboardServer } from '../web/support.js';
import type { RawResponse } from './support.js';
import { rawRequest } from './support.js';

let web: string;
let project: string;
let server: DashboardServer;

function get(path: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  return rawRequest(Number(new URL(server.url).port), { path, headers: { host: new URL(server.url).host, ...headers } });
}

beforeAll(async () => {
  web = mkdtempSync(join(tmpdir(), 'gh-web-'));
  writeFileSync(join(web, 'index.html'), '<!doctype html><title>Gatehouse</title><script type="module" src="/app.js"></script>\n');
  writeFileSync(join(web, 'app.js'), 'console.log(1);\n');
  writeFileSync(join(web, 'styles.css'), 'body{}\n');
  writeFileSync(join(web, 'xterm.css'), '.xterm{}\n');
  writeFileSync(join(web, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>\n');
  project = mkdtempSync(join(tmpdir(), 'gh-web-project-'));
  server = await startDashboardServer({ webDir: web, project });
});

afterAll(async () => {
  await server.close();
  rmSync(web, { recursive: true, force: true });
  rmSync(project, { recursive: true, force: true });
});

describe('dashboard files', () => {
  it.each([
    ['/', 'text/html; charset=utf-8', '<script type="module" src="/app.js">'],
    ['/app.js', 'text/javascript; charset=utf-8', 'console.log(1);'],
    ['/styles.css', 'text/css; charset=utf-8', 'body{}'],
    ['/xterm.css', 'text/css; charset=utf-8', '.xterm{}'],
    ['/favicon.svg', 'image/svg+xml', '<svg'],
  ])('serves %s as %s, uncached, unframeable, under the strict CSP', async (path, type, needle) => {
    const res = await get(path);
    expect(res.status).toBe(200);
    expect(res.body).toContain(needle);
    expect(res.headers).toMatchObject({
      'content-type': type,
      'cache-control': 'no-store',
      'content-security-policy': DASHBOARD_CSP,
      'x-frame-options': 'DENY',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
    });
  });

  it('allows scripts, styles and sockets only from this server, with no inline code', () => {
    const directives = new Map(DASHBOARD_CSP.split('; ').map((d) => [d.split(' ')[0], d] as const));
    expect(directives.get('default-src')).toBe("default-src 'self'");
    expect(directives.get('script-src')).toBe("script-src 'self'");
    expect(directives.get('style-src')).toBe("style-src 'self'");
    expect(directives.get('connect-src')).toBe("connect-src 'self' ws://127.0.0.1:* ws://localhost:*");
    expect(directives.get('frame-ancestors')).toBe("frame-ancestors 'none'");
    expect(DASHBOARD_CSP).not.toContain('unsafe');
  });

  it('answers 503 with what to run when the dashboard has not been built', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'gh-web-empty-'));
    const other = await startDashboardServer({ webDir: empty, project });
    try {
      const res = await rawRequest(Number(new URL(other.url).port), { path: '/app.js', headers: { host: new URL(other.url).host } });
      expect(res.status).toBe(503);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.body).toContain('npm run build');
    } finally {
      await other.close();
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe('sign-in link', () => {
  it.each(['/?token=', '/login?token='])('%s<token> sets the HttpOnly strict cookie and redirects to / so the token leaves the URL', async (prefix) => {
    const res = await get(`${prefix}${server.accessToken}`);
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/');
    expect(res.headers['set-cookie']).toEqual([`${TOKEN_COOKIE}=${server.accessToken}; HttpOnly; SameSite=Strict; Path=/`]);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
  });

  it.each([
    ['a wrong token', (): string => '/?token=0123456789abcdef0123456789abcdef'],
    ['the token less its last character', (): string => `/?token=${server.accessToken.slice(0, -1)}`],
    ['an empty token', (): string => '/?token='],
    ['no token at /login', (): string => '/login'],
  ])('refuses %s with a 401 page and sets no cookie', async (_what, path) => {
    const res = await get(path());
    expect(res.status).toBe(401);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(res.body).toContain('gatehouse serve');
  });

  it('sets the cookie the WebSocket accepts as its credential', async () => {
    const res = await get(`/?token=${server.accessToken}`);
    const cookie = (res.headers['set-cookie'] as string[])[0]?.split(';')[0] ?? '';
    const wsUrl = `${server.url.replace('http:', 'ws:')}/ws`;
    const socket = new WebSocket(wsUrl, { headers: { cookie, origin: server.url } });
    const reply = await new Promise<unknown>((resolve, reject) => {
      socket.on('open', () => socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'pty.list' })));
      socket.on('message', (data) => resolve(JSON.parse(String(data))));
      socket.on('error', reject);
    });
    socket.close();
    expect(reply).toMatchObject({ id: 1, result: { sessions: [] } });
  });
});

describe('GET /api/agents', () => {
  it('lists the agents of the adapter registry and their programs, without a credential', async () => {
    const res = await get('/api/agents');
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(JSON.parse(res.body)).toEqual({ agents: agentPrograms() });
    expect(agentPrograms().length).toBeGreaterThan(5);
  });
});

describe('addWebRoutes', () => {
  it('refuses an access token that would not survive as a cookie value', () => {
    expect(() => addWebRoutes(new Router(), { webDir: web, accessToken: 'has space; and semicolon' })).toThrow(/cookie value/);
  });

  it('leaves other methods on its paths to the router (405)', () => {
    const router = addWebRoutes(new Router(), { webDir: web, accessToken: 'a'.repeat(32) });
    expect(router.match('POST', ['']).kind).toBe('method_not_allowed');
    expect(router.match('GET', ['app.js']).kind).toBe('found');
  });
});
