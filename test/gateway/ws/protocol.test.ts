// The JSON-RPC layer itself: request parsing, stable error codes, the frame cap both ways,
// topic patterns, the flow-control account, and spawning under a Gatehouse session.
import { afterEach, describe, expect, it } from 'vitest';
import { fail, ok } from '../../../src/core/result.js';
import type { ExitInfo, PtyInfo } from '../../../src/gateway/pty/index.js';
import { cookieValue } from '../../../src/gateway/credentials.js';
import { parseRequest } from '../../../src/gateway/ws/dispatch.js';
import { topicsOf } from '../../../src/gateway/ws/events.js';
import { FlowControl } from '../../../src/gateway/ws/flow-control.js';
import { fitScrollback, outputPayloads } from '../../../src/gateway/ws/frames.js';
import type { SpawnParams } from '../../../src/gateway/ws/index.js';
import { FlowControlConstants, MAX_FRAME_BYTES, MAX_PAYLOAD_BYTES, OUTPUT_CHUNK_BYTES, RPC_ERRORS } from '../../../src/gateway/ws/index.js';
import type { RpcClient, WsHarness } from './support.js';
import { operator, startWsHarness, until } from './support.js';

describe('frames and parsing', () => {
  it('splits a large output chunk into frames under the cap that decode back to the chunk', () => {
    const chunk = Buffer.alloc(100 * 1024, 'z');
    const payloads = outputPayloads('pty-1', 9, chunk);
    expect(payloads.length).toBe(Math.ceil(chunk.length / OUTPUT_CHUNK_BYTES));
    const parts = payloads.map((p) => JSON.parse(p) as { seq: number; data: string });
    expect(parts.every((p) => p.seq === 9)).toBe(true);
    expect(Buffer.concat(parts.map((p) => Buffer.from(p.data, 'base64'))).equals(chunk)).toBe(true);
    expect(Math.max(...payloads.map((p) => p.length))).toBeLessThan(MAX_FRAME_BYTES - 512);
  });

  it('keeps the newest lines of a scrollback too big for one frame', () => {
    const lines = Array.from({ length: 5000 }, (_, i) => `\u001b[31mline ${i}\u001b[0m`);
    const { text, truncated } = fitScrollback(lines.join('\r\n'));
    expect(truncated).toBe(true);
    expect(text.endsWith('line 4999\u001b[0m')).toBe(true);
    expect(text.startsWith('\u001b[31mline ')).toBe(true);
    expect(Buffer.byteLength(JSON.stringify(text))).toBeLessThanOrEqual(MAX_FRAME_BYTES - 1024 + 2);
    expect(fitScrollback('short')).toEqual({ text: 'short', truncated: false });
  });

  it('parses requests and notifications and names what is wrong with the rest', () => {
    expect(parseRequest('{"jsonrpc":"2.0","id":"a","method":"pty.list"}')).toEqual({ ok: true, id: 'a', method: 'pty.list', params: undefined });
    expect(parseRequest('{"jsonrpc":"2.0","method":"pty.ack","params":{}}')).toMatchObject({ ok: true, id: undefined });
    const bad = (text: string): string | undefined => {
      const r = parseRequest(text);
      return r.ok ? undefined : r.error.name;
    };
    expect(bad('{nope')).toBe('parse_error');
    expect(bad('[{"jsonrpc":"2.0","id":1,"method":"pty.list"}]')).toBe('invalid_request');
    expect(bad('{"jsonrpc":"1.0","id":1,"method":"pty.list"}')).toBe('invalid_request');
    expect(bad('{"jsonrpc":"2.0","id":{},"method":"pty.list"}')).toBe('invalid_request');
    expect(bad('{"jsonrpc":"2.0","id":1,"method":"pty.list","params":[1]}')).toBe('invalid_params');
  });

  it('resolves topic patterns by namespace', () => {
    expect(topicsOf('pty.*')).toEqual(['pty.spawned', 'pty.output', 'pty.resized', 'pty.exit']);
    expect(topicsOf('audit.*')).toEqual([]);
    expect(topicsOf('approvals.changed')).toEqual(['approvals.changed']);
    expect(topicsOf('nope.*')).toBeNull();
    expect(topicsOf('pty.outp')).toBeNull();
  });

  it('reads the token cookie among others', () => {
    expect(cookieValue('a=1; gatehouse_token=abc%3D; b=2', 'gatehouse_token')).toBe('abc=');
    expect(cookieValue('a=1', 'gatehouse_token')).toBeNull();
    expect(cookieValue(undefined, 'gatehouse_token')).toBeNull();
  });
});

describe('flow-control account', () => {
  it('pauses above the high watermark and resumes only below the low one', () => {
    const f = new FlowControl();
    expect(FlowControlConstants.CharCountAckSize).toBeLessThanOrEqual(FlowControlConstants.LowWatermarkChars);
    expect(f.sent(FlowControlConstants.HighWatermarkChars)).toBeNull();
    expect(f.sent(1)).toBe('pause');
    expect(f.sent(50_000)).toBeNull();
    expect(f.acked(100_000)).toBeNull(); // 50,001 left
    expect(f.acked(45_001)).toBeNull(); // exactly 5,000: not below
    expect(f.acked(1)).toBe('resume');
    expect(f.acked(1_000_000)).toBeNull();
    expect(f.unacked).toBe(0);
    f.sent(200_000);
    expect(f.reset()).toBe('resume');
  });
});

let h: WsHarness | undefined;
const clients: RpcClient[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await h?.close();
  h = undefined;
});

async function client(): Promise<RpcClient> {
  if (h === undefined) throw new Error('no harness');
  const c = await operator(h, ['pty.*']);
  clients.push(c);
  return c;
}

describe('the protocol over a socket', () => {
  it('answers with the stable JSON-RPC error codes', async () => {
    h = await startWsHarness();
    const c = await client();
    expect((await c.call('pty.fly')).error?.code).toBe(RPC_ERRORS.method_not_found.code);
    expect((await c.call('pty.resize', { session_id: 'x', cols: 0, rows: 10 })).error?.code).toBe(RPC_ERRORS.invalid_params.code);
    expect((await c.call('pty.spawn', { command: '/bin/sh', env: { LD_PRELOAD: 'x' } })).error?.message).toMatch(/env/);
    expect((await c.call('events.subscribe', { topics: ['nope.*'] })).error?.code).toBe(RPC_ERRORS.invalid_params.code);
    expect((await c.call('pty.input', { session_id: 'x', data: '%%%', base64: true })).error?.code).toBe(RPC_ERRORS.invalid_params.code);
    c.sendRaw('{nope');
    c.sendRaw('[]');
    c.ws.send(Buffer.from([1, 2, 3]), { binary: true });
    c.notify('pty.fly');
    const pong = await c.call('pty.list');
    expect(pong.result).toEqual({ sessions: [] });
    // Three error replies with id null arrived before the pty.list result; the notification got none.
    expect(c.frameSizes.length).toBe(5 + 1 + 3 + 1);
  });

  it('refuses a frame over 64 KiB with an error, and closes on one over the payload limit', async () => {
    h = await startWsHarness();
    const c = await client();
    const over = await c.call('events.subscribe', { topics: ['pty.*'], padding: 'p'.repeat(MAX_FRAME_BYTES) });
    expect(over.error?.code).toBe(RPC_ERRORS.frame_too_large.code);
    c.sendRaw(JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'pty.list', params: { padding: 'p'.repeat(MAX_PAYLOAD_BYTES) } }));
    expect((await c.closed).code).toBe(1009);
  });

  it('answers unavailable for pty.spawn with a session when no session hook is set', async () => {
    h = await startWsHarness();
    const c = await client();
    const r = await c.call('pty.spawn', { session: { agent: 'claude' } });
    expect(r.error?.code).toBe(RPC_ERRORS.unavailable.code);
  });

  it('starts a Gatehouse session through the hook, spawns what it says, and ends it on exit', async () => {
    const seen: SpawnParams[] = [];
    const ended: ExitInfo[] = [];
    h = await startWsHarness({
      hooks: {
        onSpawnSession: (params) => {
          seen.push(params);
          if (params.session.agent === 'codex') return Promise.resolve(fail('agent codex is not installed: install it first'));
          return Promise.resolve(ok({ spawn: { command: '/bin/sh', args: ['-c', 'echo agent-ran; exit 3'], cwd: '.' }, label: 'claude · sess-1', onExit: (info) => void ended.push(info) }));
        },
      },
    });
    const c = await client();
    const info = await c.ok<PtyInfo>('pty.spawn', { session: { agent: 'claude', allow: ['src/**'], require: ['test'] } });
    expect(info.label).toBe('claude · sess-1');
    expect(seen[0]?.session).toEqual({ agent: 'claude', allow: ['src/**'], require: ['test'] });
    const exit = await c.waitEvent('pty.exit', (e) => e.data.session_id === info.id);
    expect(exit.data.exit_code).toBe(3);
    await until(() => ended.length === 1, 'the session end');
    expect(ended[0]).toEqual({ exit_code: 3, signal: null, reason: 'exited' });
    expect(c.output(info.id)).toContain('agent-ran');

    const refused = await c.call('pty.spawn', { session: { agent: 'codex' } });
    expect(refused.error).toMatchObject({ code: RPC_ERRORS.session_failed.code, message: 'agent codex is not installed: install it first' });
  });
});
