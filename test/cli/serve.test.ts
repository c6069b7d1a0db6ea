import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { CLI, tempDir } from '../support/cli.js';

let child: ChildProcess | undefined;
afterEach(() => {
  child?.kill('SIGTERM');
  child = undefined;
});

/** Starts `gatehouse serve` on a free port and returns its dashboard URL. */
async function serve(root: string, state: string): Promise<URL> {
  child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--worktree', root, '--state-dir', state], { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise<URL>((resolve, reject) => {
    let out = '';
    child!.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /dashboard: (\S+)/.exec(out);
      if (m) resolve(new URL(m[1]!));
    });
    child!.on('exit', (code) => reject(new Error(`serve exited with ${code}`)));
  });
}

function rpc(ws: WebSocket, id: number, method: string, params: unknown): Promise<{ result?: unknown; error?: { message: string } }> {
  return new Promise((resolve) => {
    const onMessage = (raw: Buffer): void => {
      const msg = JSON.parse(raw.toString()) as { id?: number; result?: unknown; error?: { message: string } };
      if (msg.id === id) {
        ws.off('message', onMessage);
        resolve(msg);
      }
    };
    ws.on('message', onMessage);
    ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
  });
}

describe('gatehouse serve', () => {
  it('prints a dashboard URL whose token signs the browser in, serves the page, audit status and a PTY over /ws', async () => {
    const base = tempDir();
    const root = join(base, 'repo');
    const state = join(base, 'state');
    mkdirSync(root, { recursive: true });
    const url = await serve(root, state);
    const token = url.searchParams.get('token')!;
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    // The token is stored for local tools, readable by its owner only.
    expect(readFileSync(join(state, 'gateway', 'access-token'), 'utf8').trim()).toBe(token);
    expect(statSync(join(state, 'gateway', 'access-token')).mode & 0o777).toBe(0o600);

    const login = await fetch(url, { redirect: 'manual' });
    expect(login.status).toBe(303);
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    const page = await fetch(new URL('/', url), { headers: { cookie } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<html');
    // The audit status (like the approvals API) needs the credential the page holds.
    expect((await fetch(new URL('/api/audit/status', url))).status).toBe(401);
    const audit = await fetch(new URL('/api/audit/status', url), { headers: { cookie } });
    expect(audit.status).toBe(200);
    expect(await audit.json()).toMatchObject({ ok: true });

    const ws = new WebSocket(`ws://${url.host}/ws`, { headers: { cookie, origin: url.origin } });
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const output: string[] = [];
    ws.on('message', (raw: Buffer) => {
      const msg = JSON.parse(raw.toString()) as { method?: string; params?: { topic: string; data: { data?: string } } };
      if (msg.method === 'event' && msg.params?.topic === 'pty.output') output.push(Buffer.from(msg.params.data.data ?? '', 'base64').toString());
    });
    await rpc(ws, 1, 'events.subscribe', { topics: ['pty.*'] });
    const spawned = await rpc(ws, 2, 'pty.spawn', { command: '/bin/sh', args: ['-c', 'echo served-hi; sleep 1'] });
    expect(spawned.error).toBeUndefined();
    for (let i = 0; i < 200 && !output.join('').includes('served-hi'); i++) await new Promise((r) => setTimeout(r, 25));
    expect(output.join('')).toContain('served-hi');
    ws.close();
  });

  it('ends the sessions of the terminals still open when it stops: hooks removed, final check recorded', async () => {
    const base = tempDir();
    const root = join(base, 'repo');
    const state = join(base, 'state');
    mkdirSync(join(root, 'src'), { recursive: true });
    const url = await serve(root, state);
    const cookie = (await fetch(url, { redirect: 'manual' })).headers.get('set-cookie')!.split(';')[0]!;
    const ws = new WebSocket(`ws://${url.host}/ws`, { headers: { cookie, origin: url.origin } });
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const spawned = await rpc(ws, 1, 'pty.spawn', { session: { agent: 'claude', allow: ['src/**'] }, command: '/bin/sh', args: ['-c', 'sleep 60'] });
    expect(spawned.error).toBeUndefined();
    const hooks = join(root, '.claude', 'settings.local.json');
    expect(existsSync(hooks)).toBe(true);
    const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
    child!.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(existsSync(hooks)).toBe(false);
    const [id] = readdirSync(join(state, 'sessions'));
    expect(JSON.parse(readFileSync(join(state, 'sessions', id!, 'meta.json'), 'utf8'))).toMatchObject({ status: 'ended', end_verdict: { passed: true } });
    ws.close();
  });

  it('refuses a WebSocket without the token', async () => {
    const base = tempDir();
    const root = join(base, 'repo');
    mkdirSync(root, { recursive: true });
    const url = await serve(root, join(base, 'state'));
    const ws = new WebSocket(`ws://${url.host}/ws`, { headers: { origin: url.origin } });
    await new Promise((resolve) => ws.once('open', resolve).once('error', resolve));
    const res = await rpc(ws, 1, 'pty.spawn', { command: '/bin/sh', args: ['-c', 'touch pwned'] }).catch(() => ({}));
    await new Promise((resolve) => (ws.readyState === WebSocket.CLOSED ? resolve(null) : ws.once('close', resolve)));
    expect((res as { result?: unknown }).result).toBeUndefined();
  });
});
