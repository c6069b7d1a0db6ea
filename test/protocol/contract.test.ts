// The wire contract holds on both sides: what a real gateway sends parses strictly against
// the protocol schemas (an extra field fails), and the types the dashboard uses are the protocol's.
import { afterEach, describe, expect, expectTypeOf, it } from 'vitest';
import { WebSocket } from 'ws';
import type { AlwaysTarget as CoreAlwaysTarget } from '../../src/core/approvals/always-scope.js';
import type { ApprovalDetail as CoreApprovalDetail } from '../../src/core/approvals/detail.js';
import type { ApprovalDetail } from '../../src/protocol/approvals.js';
import { sessionLauncher } from '../../src/gateway/session-launcher.js';
import {
  AttachResult,
  CLOSE_CODES,
  EVENT_SCHEMAS,
  ExitInfo,
  FlowControlConstants,
  PendingList,
  PtyInfo,
  PtyList,
  RpcErrorShape,
  SpawnParams,
  TOPICS,
  parseWireEvent,
} from '../../src/protocol/index.js';
import type { AlwaysTarget, PendingApproval, WireEvent } from '../../src/protocol/index.js';
import type { PendingApproval as QueuedApproval } from '../../src/runtime/approvals/index.js';
import { ACK_CHARS } from '../../src/web/terminal-view.js';
import type * as Web from '../../src/web/wire.js';
import { HOOK, testEnv } from '../support/cli.js';
import type { RpcClient, WsHarness } from '../gateway/ws/support.js';
import { operator, startWsHarness } from '../gateway/ws/support.js';

let h: WsHarness | null = null;
const clients: RpcClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await h?.close();
  h = null;
});

async function gateway(): Promise<WsHarness> {
  h = await startWsHarness({
    hooks: { onSpawnSession: (params) => sessionLauncher({ worktree: h!.project, stateDir: h!.state, env: testEnv(), nodePath: process.execPath, hookBundle: HOOK, log: () => {} })(params) },
  });
  return h;
}

async function client(topics: string[]): Promise<RpcClient> {
  const c = await operator(h!, topics);
  clients.push(c);
  return c;
}

/** Parses strictly, failing the test with zod's account of the first mismatch. */
function strict<T>(schema: { safeParse(v: unknown): { success: true; data: T } | { success: false; error: { message: string } } }, value: unknown, what: string): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new Error(`${what} does not match the protocol: ${parsed.error.message}\n${JSON.stringify(value)}`);
  return parsed.data;
}

describe('the gateway sends exactly what the protocol declares', () => {
  it('answers pty.spawn, pty.list and pty.attach, and publishes every topic, with no field outside the schemas', async () => {
    await gateway();
    const c = await client(['*']);
    const plain = strict(PtyInfo, await c.ok('pty.spawn', { command: '/bin/sh', args: ['-c', 'echo ready; sleep 30'], rows: 24, cols: 80 }), 'pty.spawn');
    const gated = strict(PtyInfo, await c.ok('pty.spawn', { session: { agent: 'claude', allow: ['src/**'], require: [] }, command: '/bin/sh', args: ['-c', 'exit 3'] }), 'pty.spawn {session}');
    expect(gated.label).toMatch(/^claude · /);

    await c.waitOutput(plain.id, /ready/);
    strict(AttachResult, await c.ok('pty.attach', { session_id: plain.id, control: true }), 'pty.attach');
    await c.ok('pty.resize', { session_id: plain.id, cols: 100, rows: 30 });
    await c.waitEvent('pty.exit', (e) => e.data.session_id === gated.id);
    const listed = strict(PtyList, await c.ok('pty.list'), 'pty.list');
    expect(listed.sessions.find((s) => s.id === gated.id)?.exit).toMatchObject({ exit_code: 3, signal: null, reason: 'exited' });

    h!.queue.enqueue({ session_id: 'sess-contract', agent: 'claude', tool: 'Edit', summary: 'edit src/a.ts', always: { tool: 'Edit', on: 'paths', paths: ['src/a.ts'] }, ttlSeconds: 600 });
    await c.waitEvent('approvals.changed', (e) => e.data.pending.length === 1);
    const pending = strict(PendingList, await c.ok('approvals.list'), 'approvals.list');
    expect(pending.pending[0]?.always).toEqual({ tool: 'Edit', on: 'paths', paths: ['src/a.ts'] });

    await c.ok('pty.close', { session_id: plain.id });
    const closed = await c.waitEvent('pty.exit', (e) => e.data.session_id === plain.id);
    expect(closed.data).toMatchObject({ reason: 'closed', exit_code: null, signal: expect.stringMatching(/^SIG/) });

    // The harness parses every event strictly (parseWireEvent) and throws on a mismatch; here, each topic came.
    const seen = new Set(c.events.map((e: WireEvent) => e.topic));
    expect([...seen].sort()).toEqual([...TOPICS].sort());
    for (const e of c.events) expect(typeof e.ts).toBe('number');
  });

  it('answers errors in the declared shape and closes an unauthorized connection with the declared code', async () => {
    await gateway();
    const c = await client([]);
    const missing = await c.call('pty.close', { session_id: 'pty-nope' });
    strict(RpcErrorShape, missing.error, 'an error reply');
    const refused = await c.call('approvals.resolve', { id: 'ap-0-00000000', decision: 'allow', nonce: 'x' });
    strict(RpcErrorShape, refused.error, 'an error reply with a reason');

    const anon = new WebSocket(h!.url);
    const code = new Promise<number>((resolve) => anon.on('close', (n) => resolve(n)));
    await new Promise((resolve) => anon.once('open', resolve));
    anon.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'pty.list' }));
    expect(await code).toBe(CLOSE_CODES.unauthorized);
  });
});

describe('the protocol schemas refuse drift', () => {
  const info: PtyInfo = {
    id: 'pty-1',
    command: 'sh',
    args: [],
    cwd: '/p',
    pid: 1,
    rows: 24,
    cols: 80,
    created_at: '2026-01-01T00:00:00Z',
    last_activity_at: '2026-01-01T00:00:00Z',
    state: 'running',
    exit: null,
  };

  it('refuses a field no side declares, such as an agent on a session or a verdict on an exit', () => {
    expect(PtyInfo.safeParse(info).success).toBe(true);
    expect(PtyInfo.safeParse({ ...info, agent: 'claude' }).success).toBe(false);
    expect(ExitInfo.safeParse({ exit_code: 0, signal: null, reason: 'exited', verdict: 'blocked' }).success).toBe(false);
    expect(EVENT_SCHEMAS['pty.exit'].safeParse({ session_id: 'pty-1', exit_code: null, signal: 15, reason: 'closed' }).success).toBe(false);
    expect(parseWireEvent({ topic: 'pty.resized', data: { session_id: 'pty-1', cols: 1, rows: 1 }, seq: 1, ts: '2026-01-01T00:00:00Z' })).toBeNull();
    expect(parseWireEvent({ topic: 'pty.resized', data: { session_id: 'pty-1', cols: 1, rows: 1 }, seq: 1, ts: 0, extra: true })).toBeNull();
  });

  it('accepts the spawn params the dashboard builds, sandbox included, and refuses unknown ones', () => {
    expect(SpawnParams.safeParse({ cols: 80, rows: 24, session: { agent: 'claude', allow: ['src/**'], require: ['test'], sandbox: { network: 'none' } } }).success).toBe(true);
    expect(SpawnParams.safeParse({ session: { agent: 'claude', sandbox: { network: 'lan' } } }).success).toBe(false);
    expect(SpawnParams.safeParse({ command: 'sh', shell: true }).success).toBe(false);
  });
});

describe('both sides use the same types and numbers', () => {
  it('gives the dashboard the protocol types, not copies of them', () => {
    expectTypeOf<Web.PtyInfo>().toEqualTypeOf<PtyInfo>();
    expectTypeOf<Web.PtyExit>().toEqualTypeOf<ExitInfo>();
    expectTypeOf<Web.AttachResult>().toEqualTypeOf<AttachResult>();
    expectTypeOf<Web.PendingApproval>().toEqualTypeOf<PendingApproval>();
    expectTypeOf<Web.SpawnParams>().toEqualTypeOf<SpawnParams>();
    expectTypeOf<Web.EventParams['ts']>().toEqualTypeOf<WireEvent['ts']>();
    expect(ACK_CHARS).toBe(FlowControlConstants.CharCountAckSize);
  });

  it('keeps the wire approval in step with the queue record and the core rule target', () => {
    expectTypeOf<AlwaysTarget>().toEqualTypeOf<CoreAlwaysTarget>();
    expectTypeOf<ApprovalDetail>().toEqualTypeOf<CoreApprovalDetail>();
    expectTypeOf<QueuedApproval>().toEqualTypeOf<PendingApproval>();
  });
});
