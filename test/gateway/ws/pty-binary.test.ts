// `pty.output` as binary messages (events.subscribe {output: 'binary'}): the exact bytes,
// beside JSON clients of the same session; catching up with pty.attach; bounded stalled viewers.
import { afterEach, describe, expect, it } from 'vitest';
import type { PtyInfo } from '../../../src/gateway/pty/index.js';
import { RPC_ERRORS, VIEWER_BACKLOG_BYTES } from '../../../src/gateway/ws/index.js';
import type { RpcClient, WsHarness } from './support.js';
import { DEADLINE_MS, operator, startWsHarness } from './support.js';

let h: WsHarness | undefined;
const clients: RpcClient[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await h?.close();
  h = undefined;
});

async function client(output?: 'binary' | 'base64', topics: string[] = ['pty.*']): Promise<RpcClient> {
  if (h === undefined) throw new Error('no harness');
  const c = await operator(h, topics, output);
  clients.push(c);
  return c;
}

/** Every byte value, then '€' and '😀' each split across writes: what the PTY must pass through untouched. */
const PARTS = [Buffer.from(Array.from({ length: 256 }, (_, i) => i)), Buffer.from([0xe2]), Buffer.from([0x82, 0xac, 0xf0, 0x9f]), Buffer.from([0x98]), Buffer.from([0x80, 0x0a])];

/** What the child prints once in raw mode; a key sent after it is neither echoed nor translated. */
const READY = 'ready>';

/**
 * Raw mode (no echo, no newline translation), then READY and a wait for a key, so every watcher
 * is attached before PARTS, which it writes 30 ms apart, so they leave in separate chunks.
 */
function partsWriter(): string[] {
  const hex = JSON.stringify(PARTS.map((p) => p.toString('hex')));
  const js = `const p=${hex}.map(h=>Buffer.from(h,'hex'));process.stdout.write('${READY}');process.stdin.once('data',()=>{let i=0;const n=()=>{if(i<p.length){process.stdout.write(p[i++]);setTimeout(n,30)}else setTimeout(()=>process.exit(0),300)};n()})`;
  return ['-c', `stty raw -echo; exec "${process.execPath}" -e "${js.replace(/"/g, '\\"')}"`];
}

describe('binary pty.output', () => {
  it('delivers the exact bytes, split UTF-8 sequences and all 256 byte values, as binary messages beside a JSON viewer', async () => {
    h = await startWsHarness();
    const bin = await client('binary');
    const json = await client();
    const { id } = await bin.ok<PtyInfo>('pty.spawn', { command: '/bin/sh', args: partsWriter() });
    await json.ok('pty.attach', { session_id: id });
    await bin.waitOutput(id, new RegExp(READY));
    await bin.ok('pty.input', { session_id: id, data: 'g' });
    await bin.waitEvent('pty.exit', (e) => e.data.session_id === id);
    await json.waitEvent('pty.exit', (e) => e.data.session_id === id);

    const expected = Buffer.concat([Buffer.from(READY), ...PARTS]);
    expect(Buffer.concat(bin.outputChunks(id))).toEqual(expected);
    expect(Buffer.concat(json.outputChunks(id))).toEqual(expected);
    expect(bin.outputChunks(id).length).toBeGreaterThan(1);
    expect(bin.binaryFrames).toBe(bin.outputChunks(id).length);
    expect(json.binaryFrames).toBe(0);
    // Each connection numbers its own events, and chunks keep the manager's seq, in order.
    const seqs = bin.events.flatMap((e) => (e.topic === 'pty.output' ? [e.data.seq] : []));
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    const envelope = bin.events.map((e) => e.seq);
    expect(envelope).toEqual(envelope.map((_, i) => (envelope[0] ?? 0) + i));
  });

  it('says which output encoding it took, and refuses one it does not know', async () => {
    h = await startWsHarness();
    const c = await client(undefined, []);
    expect(await c.ok('events.subscribe', { topics: ['pty.*'], output: 'binary' })).toEqual({ topics: ['pty.spawned', 'pty.output', 'pty.resized', 'pty.exit'], output: 'binary' });
    expect(await c.ok('events.subscribe', { topics: ['pty.exit'] })).toEqual({ topics: ['pty.spawned', 'pty.output', 'pty.resized', 'pty.exit'] });
    expect((await c.call('events.subscribe', { topics: ['pty.*'], output: 'utf8' })).error?.code).toBe(RPC_ERRORS.invalid_params.code);
  });

  it('catches a binary client up from the server screen with pty.attach, then streams only later chunks', async () => {
    h = await startWsHarness();
    const first = await client('binary');
    const { id } = await first.ok<PtyInfo>('pty.spawn', { command: '/bin/sh' });
    await first.ok('pty.input', { session_id: id, data: 'echo before-$((40+2))\n' });
    await first.waitOutput(id, /before-42/);
    first.close();
    await first.closed;

    const again = await client('binary');
    const attached = await again.ok<{ scrollback: string; seq: number; control: boolean }>('pty.attach', { session_id: id, control: true });
    expect(attached.scrollback).toContain('before-42');
    expect(attached.control).toBe(true);
    await again.ok('pty.input', { session_id: id, data: 'echo after-$((40+3))\n' });
    await again.waitOutput(id, /after-43/);
    expect(again.binaryFrames).toBeGreaterThan(0);
    for (const e of again.events) if (e.topic === 'pty.output') expect(e.data.seq).toBeGreaterThan(attached.seq);
  });

  it(
    'drops a stalled binary viewer’s output within its backlog while the binary controller gets every byte',
    async () => {
      h = await startWsHarness();
      const ctl = await client('binary');
      const viewer = await client('binary', ['pty.output', 'pty.exit']);
      const total = 10_000_000;
      const script = `stty raw -echo; sleep 0.5; head -c ${total} /dev/zero | tr '\\0' x`;
      const { id } = await ctl.ok<PtyInfo>('pty.spawn', { command: '/bin/sh', args: ['-c', script] });
      await viewer.ok('pty.attach', { session_id: id });
      viewer.ws.pause();

      let maxQueued = 0;
      const viewerStats = (): { dropped: number; queuedBytes: number; bufferedAmount: number } | undefined => h?.gw.websocket?.stats().connections.find((s) => !s.topics.includes('pty.spawned'));
      const sampler = setInterval(() => (maxQueued = Math.max(maxQueued, viewerStats()?.queuedBytes ?? 0)), 5);
      try {
        await ctl.waitEvent('pty.exit', (e) => e.data.session_id === id, 6 * DEADLINE_MS);
      } finally {
        clearInterval(sampler);
      }
      expect(ctl.output(id).replace(/[^x]/g, '').length).toBe(total);
      expect(viewerStats()?.dropped ?? 0).toBeGreaterThan(0);
      expect(maxQueued).toBeLessThanOrEqual(VIEWER_BACKLOG_BYTES);
      viewer.ws.resume();
      await viewer.waitEvent('pty.exit', (e) => e.data.session_id === id);
      expect(viewer.output(id).length).toBeLessThan(total);
    },
    8 * DEADLINE_MS,
  );
});
