// The realtime path under pressure: a controller that stops acking pauses the PTY and
// loses nothing; a viewer that stops reading loses whole chunks, counted, in bounded memory.
import { afterEach, describe, expect, it } from 'vitest';
import type { PtyInfo } from '../../../src/gateway/pty/index.js';
import { FlowControlConstants, OUTPUT_CHUNK_BYTES, VIEWER_BACKLOG_BYTES } from '../../../src/gateway/ws/index.js';
import type { RpcClient, WsHarness } from './support.js';
import { DEADLINE_MS, operator, startWsHarness, until } from './support.js';

let h: WsHarness | undefined;
const clients: RpcClient[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await h?.close();
  h = undefined;
});

async function client(topics: string[]): Promise<RpcClient> {
  if (h === undefined) throw new Error('no harness');
  const c = await operator(h, topics);
  clients.push(c);
  return c;
}

/** A command that writes `bytes` x's through the PTY, byte for byte (raw mode: no echo, no newline translation). */
function writer(bytes: number): string[] {
  return ['-c', `stty raw -echo; head -c ${bytes} /dev/zero | tr '\\0' x`];
}

/**
 * For 50 MB through a PTY and the server's headless terminal: ~5 s alone, several times
 * that on a loaded two-core machine running other PTY tests beside it.
 */
const BIG_DEADLINE_MS = 90_000;

/** Room for the few small lifecycle events queued on top of a full viewer backlog. */
const MUST_DELIVER_SLACK_BYTES = 1024;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('flow control', () => {
  it('pauses the PTY for a controller that stops acking, and resumes it without losing a byte', async () => {
    h = await startWsHarness();
    const c = await client(['pty.*']);
    c.autoAck = false;
    const total = 2_000_000;
    const { id } = await c.ok<PtyInfo>('pty.spawn', { command: '/bin/sh', args: writer(total) });
    const flow = (): { unacked: number; paused: boolean } | undefined => h?.gw.websocket?.stats().sessions.find((s) => s.session_id === id);
    await until(() => flow()?.paused === true, 'the PTY to pause');
    await sleep(300);
    const received = c.output(id).length;
    expect(received).toBeLessThan(total);
    // Only chunks already read when the pause landed can exceed the watermark.
    expect(flow()?.unacked ?? 0).toBeLessThanOrEqual(FlowControlConstants.HighWatermarkChars + 2 * OUTPUT_CHUNK_BYTES);
    expect(c.events.some((e) => e.topic === 'pty.exit')).toBe(false);

    c.startAcking();
    await c.waitEvent('pty.exit', (e) => e.data.session_id === id);
    expect(c.output(id).replace(/[^x]/g, '').length).toBe(total);
    // A chunk bigger than one frame goes out as several events with the chunk's seq, so seqs
    // repeat but never go back, and no chunk is skipped.
    const seqs = c.events.flatMap((e) => (e.topic === 'pty.output' ? [e.data.seq] : []));
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    const chunks = [...new Set(seqs)];
    expect(chunks).toEqual(chunks.map((_, i) => (chunks[0] ?? 0) + i));
  });

  it(
    'keeps a viewer that never reads bounded while the PTY writes 50 MB: drops are counted, the agent is not slowed',
    async () => {
      h = await startWsHarness();
      // The spawner takes no output, so nothing flow-controls the PTY: only the viewer is in the way.
      const owner = await client(['pty.exit']);
      const viewer = await client(['pty.output', 'pty.exit']);
      const total = 50_000_000;
      const { id } = await owner.ok<PtyInfo>('pty.spawn', { command: '/bin/sh', args: ['-c', `sleep 0.5; ${writer(total)[1] ?? ''}`] });
      await viewer.ok('pty.attach', { session_id: id });
      viewer.ws.pause();

      let maxBacklog = 0;
      let maxQueued = 0;
      const viewerStats = (): { dropped: number; queuedBytes: number; bufferedAmount: number } | undefined => h?.gw.websocket?.stats().connections.find((s) => s.topics.includes('pty.output'));
      const sampler = setInterval(() => {
        const s = viewerStats();
        if (s === undefined) return;
        maxBacklog = Math.max(maxBacklog, s.queuedBytes + s.bufferedAmount);
        maxQueued = Math.max(maxQueued, s.queuedBytes);
      }, 5);
      try {
        await owner.waitEvent('pty.exit', (e) => e.data.session_id === id, BIG_DEADLINE_MS);
      } finally {
        clearInterval(sampler);
      }
      const stats = viewerStats();
      expect(stats?.dropped ?? 0).toBeGreaterThan(0);
      // Output never takes the backlog past the limit; the exit event (must arrive) may sit on top.
      expect(maxBacklog).toBeLessThanOrEqual(VIEWER_BACKLOG_BYTES + MUST_DELIVER_SLACK_BYTES);
      expect(maxQueued).toBeLessThanOrEqual(VIEWER_BACKLOG_BYTES);

      // Once it reads again it gets what was kept, then the exit, and sees the gap in seq.
      viewer.ws.resume();
      await viewer.waitEvent('pty.exit', (e) => e.data.session_id === id);
      const kept = viewer.output(id).length;
      expect(kept).toBeLessThan(total);
      const envelopeSeqs = viewer.events.map((e) => e.seq);
      expect(envelopeSeqs.some((s, i) => i > 0 && s !== (envelopeSeqs[i - 1] ?? 0) + 1)).toBe(true);
      const last = viewer.events.at(-1);
      expect(last?.topic).toBe('pty.exit');
    },
    BIG_DEADLINE_MS + DEADLINE_MS,
  );
});
