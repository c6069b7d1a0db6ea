// Who may open `/ws` and call what: Host and Origin checked before the upgrade, a token by
// header, cookie or first message, 4401 and nothing spawned without one, scoped tokens limited.
import { afterEach, describe, expect, it } from 'vitest';
import type { ScopedToken } from '../../../src/gateway/options.js';
import { AUTH_TIMEOUT_MS, CLOSE_CODES, RPC_ERRORS } from '../../../src/gateway/ws/index.js';
import { SECRET, sha256Hex } from '../support.js';
import type { WsHarness } from './support.js';
import { ACCESS_TOKEN, RpcClient, startWsHarness, UpgradeRefused } from './support.js';

let h: WsHarness | undefined;
const clients: RpcClient[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await h?.close();
  h = undefined;
});

async function connect(opts: Parameters<typeof RpcClient.connect>[1] = {}, path = '/ws'): Promise<RpcClient> {
  if (h === undefined) throw new Error('no harness');
  const c = await RpcClient.connect(`ws://127.0.0.1:${h.gw.port}${path}`, opts);
  clients.push(c);
  return c;
}

async function refusedWith(opts: Parameters<typeof RpcClient.connect>[1], path = '/ws'): Promise<number> {
  try {
    await connect(opts, path);
  } catch (err) {
    if (err instanceof UpgradeRefused) return err.status;
    throw err;
  }
  return 101;
}

const READER: ScopedToken = { principal: 'alice', scopes: ['approvals:read'], sha256: sha256Hex(SECRET) };

describe('upgrade checks', () => {
  it('refuses an Origin that is not a loopback page on our port with 403', async () => {
    h = await startWsHarness();
    const port = h.gw.port;
    for (const origin of ['http://evil.example', `http://evil.example:${port}`, `http://127.0.0.1:${port + 1}`, 'null', `https://127.0.0.1:${port}`]) {
      expect(await refusedWith({ bearer: ACCESS_TOKEN, headers: { origin } })).toBe(403);
    }
    expect(await refusedWith({ bearer: ACCESS_TOKEN, headers: { 'sec-fetch-site': 'cross-site' } })).toBe(403);
    expect(h.manager.list()).toEqual([]);
  });

  it('accepts the dashboard origin on our port', async () => {
    h = await startWsHarness();
    for (const origin of [`http://127.0.0.1:${h.gw.port}`, `http://localhost:${h.gw.port}`]) {
      const c = await connect({ bearer: ACCESS_TOKEN, headers: { origin } });
      expect((await c.call('pty.list')).result).toEqual({ sessions: [] });
    }
  });

  it('behind --public-url, accepts a page of that URL through it, and no other', async () => {
    h = await startWsHarness({ publicUrl: 'https://gatehouse.example.com/' });
    const through = await connect({ bearer: ACCESS_TOKEN, headers: { host: 'gatehouse.example.com', origin: 'https://gatehouse.example.com' } });
    expect((await through.call('pty.list')).result).toEqual({ sessions: [] });
    expect(await refusedWith({ bearer: ACCESS_TOKEN, headers: { host: 'gatehouse.example.com', origin: 'https://evil.example.com' } })).toBe(403);
    expect(await refusedWith({ bearer: ACCESS_TOKEN, headers: { host: 'evil.example.com', origin: 'https://gatehouse.example.com' } })).toBe(403);
    expect(await refusedWith({ bearer: ACCESS_TOKEN, headers: { host: `127.0.0.1:${h.gw.port}`, origin: 'https://gatehouse.example.com' } })).toBe(403);
  });

  it('refuses a foreign Host (DNS rebinding) with 403', async () => {
    h = await startWsHarness();
    expect(await refusedWith({ bearer: ACCESS_TOKEN, headers: { host: `evil.example:${h.gw.port}` } })).toBe(403);
    expect(await refusedWith({ bearer: ACCESS_TOKEN, headers: { host: `127.0.0.1:${h.gw.port + 1}` } })).toBe(403);
  });

  it('refuses a wrong bearer token with 401 and other paths with 404', async () => {
    h = await startWsHarness();
    expect(await refusedWith({ bearer: 'not-the-token-at-all-0123456789' })).toBe(401);
    expect(await refusedWith({ bearer: ACCESS_TOKEN }, '/approvals/queue')).toBe(404);
  });
});

describe('authentication', () => {
  it('closes with 4401 and spawns nothing when the first call is not auth', async () => {
    h = await startWsHarness();
    const c = await connect();
    const r = await c.call('pty.spawn', { command: '/bin/sh' });
    expect(r.error?.code).toBe(RPC_ERRORS.unauthorized.code);
    expect((await c.closed).code).toBe(CLOSE_CODES.unauthorized);
    expect(h.manager.list()).toEqual([]);
  });

  it('closes a silent connection with 4401 after the auth window', async () => {
    h = await startWsHarness();
    const c = await connect();
    const started = Date.now();
    expect((await c.closed).code).toBe(4401);
    expect(Date.now() - started).toBeGreaterThanOrEqual(AUTH_TIMEOUT_MS - 500);
  }, 20_000);

  it('closes with 4401 on a wrong token in the auth message', async () => {
    h = await startWsHarness();
    const c = await connect();
    const r = await c.call('auth', { token: 'wrong-token-0123456789abcdef' });
    expect(r.error?.code).toBe(RPC_ERRORS.unauthorized.code);
    expect((await c.closed).code).toBe(4401);
  });

  it('accepts the access token as a bearer header, a cookie, or the first message', async () => {
    h = await startWsHarness();
    const byHeader = await connect({ bearer: ACCESS_TOKEN });
    const byCookie = await connect({ cookie: `theme=dark; gatehouse_token=${ACCESS_TOKEN}` });
    const byMessage = await connect();
    expect(await byMessage.ok('auth', { token: ACCESS_TOKEN })).toEqual({ principal: 'dashboard-operator:ana', capabilities: ['pty', 'approvals:read', 'approvals:resolve'] });
    for (const c of [byHeader, byCookie, byMessage]) {
      const spawned = await c.call('pty.spawn', { command: '/bin/sh', args: ['-c', 'exit 0'] });
      expect(spawned.error).toBeUndefined();
    }
  });

  it('ignores a stale cookie and still lets the page sign in by message', async () => {
    h = await startWsHarness();
    const c = await connect({ cookie: 'gatehouse_token=from-an-earlier-server-run-0123' });
    expect((await c.call('auth', { token: ACCESS_TOKEN })).result).toMatchObject({ principal: 'dashboard-operator:ana' });
  });

  it('lets a scoped token read approvals but not run commands', async () => {
    h = await startWsHarness({ tokens: [READER] });
    const c = await connect({ bearer: SECRET });
    expect(await c.ok('approvals.list')).toEqual({ pending: [], omitted: 0 });
    expect((await c.call('pty.spawn', { command: '/bin/sh' })).error?.code).toBe(RPC_ERRORS.forbidden.code);
    expect((await c.call('events.subscribe', { topics: ['pty.*'] })).error?.code).toBe(RPC_ERRORS.forbidden.code);
    expect((await c.call('approvals.resolve', { id: 'ap-0-00000000', decision: 'allow', nonce: 'x' })).error?.code).toBe(RPC_ERRORS.forbidden.code);
    expect(await c.ok('events.subscribe', { topics: ['approvals.*', 'audit.*'] })).toEqual({ topics: ['approvals.changed'] });
    expect(h.manager.list()).toEqual([]);

    const byMessage = await connect();
    expect((await byMessage.ok('auth', { token: SECRET })).principal).toBe('token:alice');
  });
});
