// `sessions.list` and `sessions.show`: the project's recorded sessions from its state folder,
// CLI ones too, each answer fitted to one frame; a bad id is a clear invalid_params.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { PtyInfo } from '../../../src/gateway/pty/index.js';
import { sessionLauncher } from '../../../src/gateway/session-launcher.js';
import { fitDetail } from '../../../src/gateway/ws/session-methods.js';
import { MAX_FRAME_BYTES } from '../../../src/gateway/ws/frames.js';
import { SessionDetail, SessionList } from '../../../src/protocol/sessions.js';
import { gatehouse, HOOK, testEnv } from '../../support/cli.js';
import { SECRET, sha256Hex } from '../support.js';
import type { WsHarness } from './support.js';
import { operator, RpcClient, startWsHarness, until } from './support.js';

let h: WsHarness | null = null;
const clients: RpcClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await h?.close();
  h = null;
});

async function harness(): Promise<{ h: WsHarness; c: RpcClient }> {
  h = await startWsHarness({
    hooks: { onSpawnSession: (params) => sessionLauncher({ worktree: h!.project, stateDir: h!.state, env: testEnv(), nodePath: process.execPath, hookBundle: HOOK })(params) },
  });
  const c = await operator(h, []);
  clients.push(c);
  return { h, c };
}

const startCli = (hh: WsHarness, extra: string[] = []): string => {
  const r = gatehouse(['session', 'start', '--agent', 'claude', '--worktree', hh.project, '--state-dir', hh.state, ...extra]);
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.trim();
};

describe('sessions.list and sessions.show', () => {
  it('lists sessions started from the CLI, newest first, with their status and verdict', async () => {
    const { h, c } = await harness();
    const first = startCli(h);
    const second = startCli(h);
    expect(gatehouse(['session', 'end', first, '--worktree', h.project, '--state-dir', h.state]).status).toBe(0);
    expect(gatehouse(['session', 'check', first, '--worktree', h.project, '--state-dir', h.state]).status).toBe(0);
    const list = SessionList.parse(await c.ok('sessions.list', {}));
    expect(list.omitted).toBe(0);
    expect(list.sessions.map((s) => s.id)).toEqual([second, first]);
    expect(list.sessions[1]).toMatchObject({ agent: 'claude', status: 'ended', verdict: 'passed', pty_id: null, problem: null });
    expect(list.sessions[0]).toMatchObject({ status: 'active', verdict: null });
  });

  it('shows one session, and links a dashboard-spawned PTY to its Gatehouse session both ways', async () => {
    const { h, c } = await harness();
    const info = await c.ok<PtyInfo>('pty.spawn', { session: { agent: 'none', allow: ['src/**'] }, command: '/bin/sh', args: ['-c', 'echo hi > made.txt; sleep 30'] });
    expect(info.gatehouse_session).toMatch(/\S/);
    const list = SessionList.parse(await c.ok('sessions.list', {}));
    expect(list.sessions.find((s) => s.id === info.gatehouse_session)?.pty_id).toBe(info.id);
    await until(() => existsSync(join(h.project, 'made.txt')), 'the agent to write its file');
    const shown = SessionDetail.parse(await c.ok('sessions.show', { id: info.gatehouse_session }));
    expect(shown.session).toMatchObject({ id: info.gatehouse_session, pty_id: info.id, status: 'active' });
    expect(shown.diff.files).toEqual([expect.objectContaining({ path: 'made.txt', change: 'created', shown: 'text', diff: '@@ -0,0 +1,1 @@\n+hi' })]);
    expect(shown.audit.verified).toBe(true);
  });

  it('refuses an unsafe id with invalid_params and an unknown one with no_such_session', async () => {
    const { c } = await harness();
    const bad = await c.call('sessions.show', { id: '../etc' });
    expect(bad.error).toMatchObject({ code: -32602 });
    expect(bad.error?.message).toContain('params.id: must be a session id');
    expect((await c.call('sessions.show', {})).error?.code).toBe(-32602);
    const none = await c.call('sessions.show', { id: 'nosuch' });
    expect(none.error).toMatchObject({ code: -32004 });
    expect(none.error?.message).toContain('no Gatehouse session nosuch in this project');
  });

  it('is not open to a scoped approvals token: a record shows file contents', async () => {
    h = await startWsHarness({ tokens: [{ principal: 'alice', scopes: ['approvals:read', 'approvals:resolve'], sha256: sha256Hex(SECRET) }] });
    const c = await RpcClient.connect(h.url, { bearer: SECRET });
    clients.push(c);
    expect((await c.call('sessions.list', {})).error?.code).toBe(-32002);
    expect((await c.call('sessions.show', { id: 'x' })).error?.code).toBe(-32002);
  });

  it('fits a session with a large diff and many decisions into one frame, oldest decisions first out', async () => {
    const { h, c } = await harness();
    const id = startCli(h, ['--allow', 'src/**']);
    // Files of multi-byte text: 32 K characters of diff are ~96 KiB of JSON.
    mkdirSync(join(h.project, 'out'));
    for (let i = 0; i < 20; i++) writeFileSync(join(h.project, 'out', `f${i}.txt`), `${'ü€'.repeat(40)}\n`.repeat(60));
    const reply = await c.call('sessions.show', { id });
    expect(reply.error).toBeUndefined();
    expect(Math.max(...c.frameSizes)).toBeLessThanOrEqual(MAX_FRAME_BYTES);
    const shown = SessionDetail.parse(reply.result);
    expect(shown.diff.problem).toBeNull();
    expect(shown.diff.total).toBe(20);
    expect(shown.diff.files.some((f) => f.shown === 'text')).toBe(true);
    expect(shown.diff.files.some((f) => f.note.startsWith('left out'))).toBe(true);
    // And the timeline: the newest kept, the total still counted.
    const entry = (seq: number) => ({ seq, time: 't', type: 'gate_decision' as const, what: 'refused Write x', reason: 'r'.repeat(1500), by: null, refused: true });
    const fitted = fitDetail({ ...shown, timeline: Array.from({ length: 50 }, (_, i) => entry(i)), timeline_total: 50 });
    expect(Buffer.byteLength(JSON.stringify(fitted))).toBeLessThanOrEqual(MAX_FRAME_BYTES - 1024);
    expect(fitted.timeline.at(-1)?.seq).toBe(49);
    expect(fitted.timeline.length).toBeGreaterThanOrEqual(10);
    expect(fitted.timeline_total).toBe(50);
  });
});
