// The dashboard's sandboxed sessions over a real WebSocket and the real bubblewrap: the agent's
// command runs inside (state hidden, the rest read-only, secrets dropped), and a sandbox asked
// for in words the server does not know is refused, never run without one.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { PtyInfo } from '../../../src/gateway/pty/index.js';
import { sessionLauncher } from '../../../src/gateway/session-launcher.js';
import { RPC_ERRORS } from '../../../src/gateway/ws/index.js';
import { HOOK, testEnv } from '../../support/cli.js';
import { sandboxAvailable } from '../../e2e/support/sandbox-run.js';
import type { RpcClient, WsHarness } from './support.js';
import { operator, startWsHarness, until } from './support.js';

let h: WsHarness | null = null;
let c: RpcClient | null = null;
/** The sessions' HOME: the sandbox puts stand-in settings files in the agent's folders there. */
let home = '';
afterEach(async () => {
  c?.close();
  c = null;
  await h?.close();
  h = null;
  rmSync(home, { recursive: true, force: true });
});

let logs: string[] = [];

/** A scoped token's secret in the server's own environment, which the PTY child inherits. */
const TOKEN_ENV = 'GATEHOUSE_SBX_DASH_TOKEN';
const TOKEN_VALUE = 'tok-do-not-leak-0123456789';

async function harness(): Promise<RpcClient> {
  logs = [];
  home = mkdtempSync(join(tmpdir(), 'gh-sbx-dash-home-'));
  h = await startWsHarness({
    hooks: {
      // PATH and a HOME of its own: bwrap and perl are found on PATH, and nothing of the user's config
      // leaks in, nor does anything land in the user's home.
      onSpawnSession: (params) =>
        sessionLauncher({ worktree: h!.project, stateDir: h!.state, env: testEnv({ PATH: process.env.PATH, HOME: home }), nodePath: process.execPath, hookBundle: HOOK, log: (l) => logs.push(l) })(
          params,
        ),
    },
  });
  c = await operator(h);
  return c;
}

function sessionFile(name: string): unknown {
  const [id] = readdirSync(join(h!.state, 'sessions'));
  return JSON.parse(readFileSync(join(h!.state, 'sessions', id!, name), 'utf8'));
}

const settings = (): string => join(h!.project, '.claude', 'settings.local.json');

describe('pty.spawn with session.sandbox: the values it takes', () => {
  it('refuses an unknown network, a non-object and unknown keys as invalid params, and starts nothing', async () => {
    const client = await harness();
    const bad: [unknown, string][] = [
      [{ network: 'off' }, 'params.session.sandbox.network: expected one of host, none'],
      [{ network: 'bridge' }, 'params.session.sandbox.network: expected one of host, none'],
      [true, 'params.session.sandbox: expected an object'],
      ['none', 'params.session.sandbox: expected an object'],
      [null, 'params.session.sandbox: expected an object'],
      [{ network: 'none', engine: 'docker' }, 'params.session.sandbox'],
    ];
    for (const [sandbox, message] of bad) {
      const r = await client.call('pty.spawn', { session: { agent: 'claude', allow: ['src/**'], sandbox }, command: '/bin/sh', args: ['-c', 'exit 0'] });
      expect(r.error?.code, JSON.stringify(sandbox)).toBe(RPC_ERRORS.invalid_params.code);
      expect(r.error?.message).toContain(message);
    }
    expect(existsSync(join(h!.state, 'sessions'))).toBe(false);
    expect(existsSync(settings())).toBe(false);
  });
});

describe.skipIf(!sandboxAvailable())('pty.spawn with session.sandbox: the agent runs in bubblewrap', () => {
  it('hides the state folder, keeps the rest read-only and takes the network away, and says so in the label and policy', async () => {
    const client = await harness();
    writeFileSync(join(h!.state, 'secret-note'), 'state is here');
    const script = [
      `ls -A ${h!.state} | wc -l`,
      'echo state-listed',
      'touch /outside-probe',
      `touch ${h!.project}/inside-probe && echo wrote-inside`,
      'sed -n "3,\\$p" /proc/net/dev | cut -d: -f1 | tr -d " " | tr "\\n" " "; echo nets-listed',
      'sleep 30',
    ].join('; ');
    const info = await client.ok<PtyInfo>('pty.spawn', { session: { agent: 'claude', allow: ['**'], sandbox: { network: 'none' } }, command: '/bin/sh', args: ['-c', script] });
    expect(info.label).toMatch(/^claude · \S+ · sandboxed \(network none\)$/);
    // The agent's own command line is shown, not the bwrap wrapper around it.
    expect([info.command, ...info.args]).toEqual(['/bin/sh', '-c', script]);
    await client.waitOutput(info.id, /^0\r\nstate-listed/m);
    await client.waitOutput(info.id, /Read-only file system/);
    await client.waitOutput(info.id, /wrote-inside/);
    await client.waitOutput(info.id, /^lo nets-listed/m);
    expect(existsSync('/outside-probe')).toBe(false);
    expect(existsSync(join(h!.project, 'inside-probe'))).toBe(true);
    expect(sessionFile('policy.json')).toMatchObject({ sandboxed: true, sandbox: { engine: 'bubblewrap', network: 'none' } });
    await client.ok('pty.close', { session_id: info.id });
    await until(() => logs.some((l) => l.includes('end-of-session check')), 'the end-of-session check');
    await until(() => !existsSync(settings()), 'the hooks to be removed');
  });

  it("keeps a scoped token's secret out of the agent's environment", async () => {
    const client = await harness();
    writeFileSync(join(h!.project, 'gatehouse.yaml'), `approvals:\n  tokens:\n    - principal: ci\n      scopes: [approvals:read]\n      env: ${TOKEN_ENV}\n`);
    process.env[TOKEN_ENV] = TOKEN_VALUE;
    try {
      const info = await client.ok<PtyInfo>('pty.spawn', {
        session: { agent: 'claude', allow: ['**'], sandbox: { network: 'host' } },
        command: '/bin/sh',
        args: ['-c', `echo "token=[\${${TOKEN_ENV}:-unset}] session=[\${GATEHOUSE_SESSION:+set}]"; sleep 30`],
      });
      expect(info.label).toMatch(/ · sandboxed \(network host\)$/);
      await client.waitOutput(info.id, /token=\[unset\] session=\[set\]/);
      await client.ok('pty.close', { session_id: info.id });
    } finally {
      delete process.env[TOKEN_ENV];
    }
  });

  it('sandboxes a session whose config asks for it, though the form left the sandbox off', async () => {
    const client = await harness();
    writeFileSync(join(h!.project, 'gatehouse.yaml'), 'sandbox:\n  enabled: true\n  network: none\n');
    const info = await client.ok<PtyInfo>('pty.spawn', { session: { agent: 'claude', allow: ['**'] }, command: '/bin/sh', args: ['-c', 'touch /outside-probe; sleep 30'] });
    expect(info.label).toMatch(/ · sandboxed \(network none\)$/);
    await client.waitOutput(info.id, /Read-only file system/);
    expect(sessionFile('policy.json')).toMatchObject({ sandboxed: true });
    await client.ok('pty.close', { session_id: info.id });
  });

  it('ends the sandbox with its terminal: closing leaves no process of it behind', async () => {
    const client = await harness();
    // A duration no other process on this machine sleeps for: the probe finds this one only.
    const seconds = String(700_000 + Math.floor(Math.random() * 100_000));
    // Ignores the hangup, and runs in the sandbox's own session: only --die-with-parent ends it.
    const info = await client.ok<PtyInfo>('pty.spawn', { session: { agent: 'claude', allow: ['**'], sandbox: {} }, command: '/bin/sh', args: ['-c', `trap "" HUP; sleep ${seconds}; echo done`] });
    await until(() => sleepers(seconds) > 0, 'the sandboxed program to start');
    await client.ok('pty.close', { session_id: info.id });
    await until(() => sleepers(seconds) === 0, 'the sandboxed program to end');
    await until(() => logs.some((l) => l.includes('end-of-session check')), 'the end-of-session check');
  });

  it('ends a session still running when the server stops: the final check runs and the stand-ins in the home go', async () => {
    const client = await harness();
    // A Claude Code user's folder, without the settings files the sandbox then stands in for.
    mkdirSync(join(home, '.claude'));
    const info = await client.ok<PtyInfo>('pty.spawn', { session: { agent: 'claude', allow: ['**'], sandbox: {} }, command: '/bin/sh', args: ['-c', 'echo up; sleep 30'] });
    await client.waitOutput(info.id, /up/);
    expect(readdirSync(join(home, '.claude')).sort()).toEqual(['settings.json', 'settings.local.json']);
    expect(existsSync(settings())).toBe(true);
    // As `gatehouse serve` stops: the terminals, then the endpoint (the harness closes them in that order).
    c?.close();
    c = null;
    await h!.close();
    h = null;
    expect(logs.some((l) => /end-of-session check (passed|FAILED)/.test(l))).toBe(true);
    expect(readdirSync(join(home, '.claude'))).toEqual([]);
  });

  it('refuses a command that is not there before anything runs, and records that it never ran', async () => {
    const client = await harness();
    const r = await client.call('pty.spawn', { session: { agent: 'claude', allow: ['**'], sandbox: { network: 'none' } }, command: '/nonexistent/agent-for-gatehouse' });
    expect(r.error?.code).toBe(RPC_ERRORS.session_failed.code);
    expect(r.error?.message).toContain('/nonexistent/agent-for-gatehouse');
    await until(() => logs.some((l) => l.includes('never ran')), 'the log line');
    expect(sessionFile('meta.json')).toMatchObject({ status: 'ended', end_verdict: { passed: false } });
    expect(existsSync(settings())).toBe(false);
  });
});

/** How many processes run `sleep SECONDS` (read from /proc). */
function sleepers(seconds: string): number {
  let n = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8') === `sleep\0${seconds}\0`) n++;
    } catch {
      // Gone since the listing.
    }
  }
  return n;
}
