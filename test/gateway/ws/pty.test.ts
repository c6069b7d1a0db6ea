// PTY round trips over a real WebSocket: spawn a shell, type, resize (seen by `stty size`),
// exit codes, catching up after a reconnect, subscription filtering and the frame cap.
import { afterEach, describe, expect, it } from 'vitest';
import type { PtyInfo } from '../../../src/gateway/pty/index.js';
import { MAX_FRAME_BYTES, NO_SUCH_SESSION, RPC_ERRORS } from '../../../src/gateway/ws/index.js';
import type { PtyHost } from '../../../src/gateway/ws/index.js';
import type { RpcClient, WsHarness } from './support.js';
import { operator, startWsHarness, until } from './support.js';

let h: WsHarness | undefined;
const clients: RpcClient[] = [];

async function client(topics?: string[]): Promise<RpcClient> {
  if (h === undefined) throw new Error('no harness');
  const c = await operator(h, topics);
  clients.push(c);
  return c;
}

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await h?.close();
  h = undefined;
});

describe('pty over the WebSocket', () => {
  it('accepts the real PtyManager as its host', async () => {
    h = await startWsHarness();
    const host: PtyHost = h.manager;
    expect(host.list()).toEqual([]);
  });

  it('spawns /bin/sh, types echo hi and sees hi in pty.output, then the exit code in pty.exit', async () => {
    h = await startWsHarness();
    const c = await client();
    const info = await c.ok<PtyInfo>('pty.spawn', { command: '/bin/sh', rows: 24, cols: 80 });
    expect(info.state).toBe('running');
    expect(info.cwd).toBe(h.project);
    await c.waitEvent('pty.spawned', (e) => e.data.session_id === info.id);
    expect(await c.ok('pty.input', { session_id: info.id, data: 'echo h""i\n' })).toEqual({ bytes: 10 });
    // The echo of the command reads h""i: only the shell's answer reads hi.
    await c.waitOutput(info.id, /hi\r\n/);
    await c.ok('pty.input', { session_id: info.id, data: Buffer.from('exit 7\n').toString('base64'), base64: true });
    const exit = await c.waitEvent('pty.exit', (e) => e.data.session_id === info.id);
    expect(exit.data).toEqual({ session_id: info.id, exit_code: 7, signal: null, reason: 'exited' });
  });

  it('resizes the terminal, as `stty size` inside it reports', async () => {
    h = await startWsHarness();
    const c = await client();
    const { id } = await c.ok<PtyInfo>('pty.spawn', { command: '/bin/sh' });
    expect(await c.ok('pty.resize', { session_id: id, cols: 101, rows: 33 })).toEqual({ cols: 101, rows: 33 });
    await c.waitEvent('pty.resized', (e) => e.data.session_id === id && e.data.cols === 101);
    await c.ok('pty.input', { session_id: id, data: 'stty size\n' });
    // Typed ahead, the command may be echoed before the shell's prompt: match the answer alone.
    await c.waitOutput(id, /33 101\r\n/);
    expect(h.manager.get(id)?.cols).toBe(101);
  });

  it('reports a process killed by pty.close with reason closed', async () => {
    h = await startWsHarness();
    const c = await client();
    const { id } = await c.ok<PtyInfo>('pty.spawn', { command: '/bin/sh', args: ['-c', 'sleep 30'] });
    expect(await c.ok('pty.close', { session_id: id })).toEqual({});
    const exit = await c.waitEvent('pty.exit', (e) => e.data.session_id === id);
    expect(exit.data.reason).toBe('closed');
    expect(exit.data.signal).toBe('SIGHUP');
  });

  it('lets a reconnecting client catch up from the scrollback and take control', async () => {
    h = await startWsHarness();
    const first = await client();
    const { id } = await first.ok<PtyInfo>('pty.spawn', { command: '/bin/sh' });
    await first.ok('pty.input', { session_id: id, data: 'echo before-$((40+2))\n' });
    await first.waitOutput(id, /before-42/);
    first.close();
    await first.closed;

    const again = await client();
    const attached = await again.ok<{ scrollback: string; seq: number; control: boolean; truncated: boolean; skipped_bytes: number }>('pty.attach', { session_id: id, control: true });
    expect(attached.scrollback).toContain('before-42');
    expect(attached.truncated).toBe(false);
    expect(attached.skipped_bytes).toBe(0);
    expect(attached.control).toBe(true);
    expect(attached.seq).toBeGreaterThan(0);
    await again.ok('pty.input', { session_id: id, data: 'echo after-$((40+3))\n' });
    await again.waitOutput(id, /after-43/);
    // Nothing before the snapshot is sent again: every chunk comes after its seq.
    for (const e of again.events) if (e.topic === 'pty.output') expect(e.data.seq).toBeGreaterThan(attached.seq);
  });

  it('attaches mid-flood with a snapshot that later chunks follow on exactly, with no gap and no repeat', async () => {
    h = await startWsHarness();
    const owner = await client();
    const script = 'i=0; while [ $i -lt 400 ]; do seq 1 500; i=$((i+1)); done; echo FLOOD-DONE';
    const { id } = await owner.ok<PtyInfo>('pty.spawn', { command: '/bin/sh', args: ['-c', script] });
    await owner.waitOutput(id, /\n250\r?\n/);
    const late = await client();
    const attached = await late.ok<{ seq: number; skipped_bytes: number; scrollback: string }>('pty.attach', { session_id: id });
    expect(attached.skipped_bytes).toBeGreaterThanOrEqual(0);
    await late.waitEvent('pty.exit', (e) => e.data.session_id === id);
    const seqs = late.events.flatMap((e) => (e.topic === 'pty.output' ? [e.data.seq] : []));
    expect(seqs.length).toBeGreaterThan(0);
    expect(seqs).toEqual(seqs.map((_, i) => attached.seq + 1 + i));
    expect(late.output(id)).toContain('FLOOD-DONE');
  });

  it('refuses input from a viewer until it takes control', async () => {
    h = await startWsHarness();
    const owner = await client();
    const viewer = await client();
    const { id } = await owner.ok<PtyInfo>('pty.spawn', { command: '/bin/sh' });
    await viewer.ok('pty.attach', { session_id: id });
    const refused = await viewer.call('pty.input', { session_id: id, data: 'echo nope\n' });
    expect(refused.error?.code).toBe(RPC_ERRORS.not_controller.code);
    await viewer.ok('pty.attach', { session_id: id, control: true });
    await viewer.ok('pty.input', { session_id: id, data: 'echo vie""wer\n' });
    // The old controller still watches, as a viewer.
    await owner.waitOutput(id, /viewer\r\n/);
    expect((await owner.call('pty.input', { session_id: id, data: 'x' })).error?.code).toBe(RPC_ERRORS.not_controller.code);
  });

  it('sends pty.output only to connections subscribed to it', async () => {
    h = await startWsHarness();
    const c = await client(['approvals.*']);
    const watcher = await client(['pty.output', 'pty.exit']);
    const { id } = await c.ok<PtyInfo>('pty.spawn', { command: '/bin/sh', args: ['-c', 'echo filtered; sleep 0.2'] });
    await watcher.ok('pty.attach', { session_id: id });
    await watcher.waitEvent('pty.exit', (e) => e.data.session_id === id);
    await c.ok('pty.list');
    expect(c.events.filter((e) => e.topic.startsWith('pty.'))).toEqual([]);
    expect(watcher.events.some((e) => e.topic === 'pty.spawned')).toBe(false);
  });

  it('splits 100 KB of output into frames of at most 64 KiB, losing nothing', async () => {
    h = await startWsHarness();
    const c = await client();
    const size = 100_000;
    const { id } = await c.ok<PtyInfo>('pty.spawn', { command: '/bin/sh', args: ['-c', `stty raw -echo; head -c ${size} /dev/zero | tr '\\0' x; sleep 0.2`] });
    await c.waitEvent('pty.exit', (e) => e.data.session_id === id);
    expect(c.output(id).replace(/[^x]/g, '').length).toBe(size);
    expect(Math.max(...c.frameSizes)).toBeLessThanOrEqual(MAX_FRAME_BYTES);
    expect(c.frameSizes.length).toBeGreaterThan(1);
  });

  it('refuses a pty.input over 64 KiB with an error and writes nothing', async () => {
    h = await startWsHarness();
    const c = await client();
    const { id } = await c.ok<PtyInfo>('pty.spawn', { command: '/bin/sh' });
    const big = `echo ${'y'.repeat(70 * 1024)}-too-big\n`;
    const refused = await c.call('pty.input', { session_id: id, data: big });
    expect(refused.error?.code).toBe(RPC_ERRORS.frame_too_large.code);
    await c.ok('pty.input', { session_id: id, data: 'echo still-$((1+1))\n' });
    await c.waitOutput(id, /still-2/);
    expect(c.output(id)).not.toContain('too-big');
  });

  it('answers "no such session" for an unknown id', async () => {
    h = await startWsHarness();
    const c = await client();
    const calls: [string, Record<string, unknown>][] = [
      ['pty.input', { session_id: 'pty-nope', data: 'x' }],
      ['pty.resize', { session_id: 'pty-nope', cols: 10, rows: 10 }],
      ['pty.close', { session_id: 'pty-nope' }],
      ['pty.attach', { session_id: 'pty-nope' }],
    ];
    for (const [method, params] of calls) {
      const r = await c.call(method, params);
      expect(r.error).toEqual({ code: RPC_ERRORS.no_such_session.code, message: NO_SUCH_SESSION, data: { name: 'no_such_session' } });
    }
  });

  it('refuses a spawn outside the project with spawn_failed', async () => {
    h = await startWsHarness();
    const c = await client();
    const r = await c.call('pty.spawn', { command: '/bin/sh', cwd: '/' });
    expect(r.error?.code).toBe(RPC_ERRORS.spawn_failed.code);
    expect(r.error?.message).toMatch(/outside the project/);
    expect(h.manager.list()).toEqual([]);
  });

  it('lists sessions', async () => {
    h = await startWsHarness();
    const c = await client();
    const { id } = await c.ok<PtyInfo>('pty.spawn', { command: '/bin/sh' });
    const { sessions } = await c.ok<{ sessions: PtyInfo[] }>('pty.list');
    expect(sessions.map((s) => s.id)).toEqual([id]);
    await until(() => h?.gw.websocket?.stats().sessions.length === 1, 'the session in the hub');
  });
});
