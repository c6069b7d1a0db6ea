// The dashboard's spawn path names its agent as the CLI's --agent does: an unknown name is a bad
// request listing the known agents, any case is accepted, and "none" gates nothing on purpose.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { PtyInfo } from '../../../src/gateway/pty/index.js';
import { sessionLauncher } from '../../../src/gateway/session-launcher.js';
import { RPC_ERRORS } from '../../../src/gateway/ws/index.js';
import { HOOK, testEnv } from '../../support/cli.js';
import type { RpcClient, WsHarness } from './support.js';
import { operator, startWsHarness, until } from './support.js';

let h: WsHarness | null = null;
let c: RpcClient | null = null;
afterEach(async () => {
  c?.close();
  c = null;
  await h?.close();
  h = null;
});

let logs: string[] = [];

async function harness(): Promise<RpcClient> {
  logs = [];
  h = await startWsHarness({
    hooks: {
      onSpawnSession: (params) => sessionLauncher({ worktree: h!.project, stateDir: h!.state, env: testEnv(), nodePath: process.execPath, hookBundle: HOOK, log: (l) => logs.push(l) })(params),
    },
  });
  c = await operator(h);
  return c;
}

const settings = (): string => join(h!.project, '.claude', 'settings.local.json');

describe('pty.spawn with a session: the agent name', () => {
  it('refuses an unknown agent as invalid params, listing the known agents, and starts nothing', async () => {
    const client = await harness();
    for (const agent of ['claud', 'foo']) {
      const r = await client.call('pty.spawn', { session: { agent, allow: ['src/**'] }, command: '/bin/sh', args: ['-c', 'exit 0'] });
      expect(r.error?.code).toBe(RPC_ERRORS.invalid_params.code);
      expect(r.error?.message).toContain(`unknown agent "${agent}"`);
      expect(r.error?.message).toContain('claude, qwen');
      expect(r.error?.message).toContain('session.agent "none"');
    }
    expect((await client.call('pty.spawn', { session: { agent: 'claud' } })).error?.message).toContain('did you mean claude?');
    expect(existsSync(join(h!.state, 'sessions'))).toBe(false);
    expect(existsSync(settings())).toBe(false);
  });

  it('accepts an agent name in any case, as the CLI does', async () => {
    const client = await harness();
    const info = await client.ok<PtyInfo>('pty.spawn', { session: { agent: 'Claude', allow: ['src/**'] }, command: '/bin/sh', args: ['-c', 'sleep 30'] });
    expect(info.label).toMatch(/^claude · /);
    expect(readFileSync(settings(), 'utf8')).toContain('--event Stop');
    await client.ok('pty.close', { session_id: info.id });
    await until(() => !existsSync(settings()), 'the hooks to be removed');
  });

  it('starts an ungated session only for agent "none", and only with a command', async () => {
    const client = await harness();
    const missing = await client.call('pty.spawn', { session: { agent: 'none' } });
    expect(missing.error?.code).toBe(RPC_ERRORS.session_failed.code);
    expect(missing.error?.message).toContain('give the command to run');
    const info = await client.ok<PtyInfo>('pty.spawn', { session: { agent: 'none', allow: ['src/**'] }, command: '/bin/sh', args: ['-c', 'echo ran; sleep 30'] });
    expect(info.label).toMatch(/^none · /);
    expect(existsSync(settings())).toBe(false);
    await client.ok('pty.close', { session_id: info.id });
  });

  it('never reads a command the PTY could not start as a pass', async () => {
    const client = await harness();
    const r = await client.call('pty.spawn', { session: { agent: 'claude', allow: ['src/**'] }, command: 'nonexistent-cmd-for-gatehouse' });
    expect(r.error?.code).toBe(RPC_ERRORS.spawn_failed.code);
    await until(() => logs.some((l) => l.includes('never ran')), 'the log line');
    expect(logs.join('\n')).not.toContain('passed');
    const [id] = readdirSync(join(h!.state, 'sessions'));
    const meta = JSON.parse(readFileSync(join(h!.state, 'sessions', id!, 'meta.json'), 'utf8'));
    expect(meta).toMatchObject({ status: 'ended', end_verdict: { passed: false } });
    expect(meta.end_verdict.summary).toContain('never ran');
    expect(existsSync(settings())).toBe(false);
  });

  it('hides a secret the never-started command quotes, in the log and the session record', async () => {
    const client = await harness();
    const r = await client.call('pty.spawn', { session: { agent: 'claude', allow: ['src/**'] }, command: 'API_KEY=sk-123', args: ['x'] });
    expect(r.error?.code).toBe(RPC_ERRORS.spawn_failed.code);
    expect(r.error?.message).not.toContain('sk-123');
    await until(() => logs.some((l) => l.includes('never ran')), 'the log line');
    expect(logs.join('\n')).toContain('API_KEY=***');
    expect(logs.join('\n')).not.toContain('sk-123');
    const [id] = readdirSync(join(h!.state, 'sessions'));
    const meta = readFileSync(join(h!.state, 'sessions', id!, 'meta.json'), 'utf8');
    expect(JSON.parse(meta).end_verdict.summary).toContain('API_KEY=***');
    expect(meta).not.toContain('sk-123');
  });
});

describe('pty.spawn with a session: an agent that does not match the program', () => {
  for (const agent of ['claude-sdk', 'gemini']) {
    it(`refuses agent ${agent} running claude, naming session.agent claude, and starts nothing`, async () => {
      const client = await harness();
      for (const spawn of [{ command: 'claude', args: ['-p', 'hi'] }, { command: 'env K=v /usr/local/bin/claude -p hi' }]) {
        const r = await client.call('pty.spawn', { session: { agent, allow: ['src/**'] }, ...spawn });
        expect(r.error?.code).toBe(RPC_ERRORS.session_failed.code);
        expect(r.error?.message).toContain(`claude is the claude agent's CLI, but this session gates ${agent}`);
        expect(r.error?.message).toContain('use session.agent claude');
      }
      expect(existsSync(join(h!.state, 'sessions'))).toBe(false);
      expect(existsSync(settings())).toBe(false);
    });
  }
});

describe('pty.spawn with a session: a flag that switches the agent hooks off', () => {
  it('refuses OpenCode started with --pure, which loads no plugin, and starts nothing', async () => {
    const client = await harness();
    const r = await client.call('pty.spawn', { session: { agent: 'opencode', allow: ['src/**'] }, command: 'opencode', args: ['--pure'] });
    expect(r.error?.code).toBe(RPC_ERRORS.session_failed.code);
    expect(r.error?.message).toContain('with the flag --pure, opencode skips the hooks Gatehouse renders without a word');
    expect(existsSync(join(h!.state, 'sessions'))).toBe(false);
    expect(existsSync(join(h!.project, '.opencode'))).toBe(false);
  });
});
