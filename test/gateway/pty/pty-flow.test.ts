// Output flow through a real PTY: chunk numbering and exit ordering at the end of a burst,
// pause/resume without loss (also when the child exits while paused), bounded memory in a flood.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PtyManager } from '../../../src/gateway/pty/index.js';
import { makeTemp, Recorder } from './support.js';

let temp: ReturnType<typeof makeTemp>;
let manager: PtyManager;
let rec: Recorder;

beforeEach(() => {
  temp = makeTemp();
  manager = new PtyManager({ projectRoot: temp.project });
  rec = new Recorder(manager);
});

afterEach(async () => {
  await manager.dispose();
  temp.cleanup();
});

function spawnSh(script: string): string {
  const r = manager.spawn({ command: '/bin/sh', args: ['-c', script], cwd: temp.project });
  if (!r.ok) throw new Error(r.reason);
  return r.value.id;
}

function outputSeqs(id: string): number[] {
  return rec.of(id).flatMap((e) => (e.kind === 'output' ? [e.seq] : []));
}

describe('output flow', () => {
  it('numbers chunks 1, 2, 3... and reports exit after the last chunk of a burst, tail included', async () => {
    // Several at once: the tail of a burst is where node-pty drops bytes or races them with exit.
    const ids = Array.from({ length: 4 }, () => spawnSh('seq 1 40000; echo LAST-LINE'));
    for (const id of ids) {
      expect(await rec.exitOf(id)).toEqual({ exit_code: 0, signal: null, reason: 'exited' });
      expect(rec.of(id).at(-1)?.kind).toBe('exit');
      expect(rec.exits(id)).toHaveLength(1);
      const seqs = outputSeqs(id);
      expect(seqs).toEqual(seqs.map((_, i) => i + 1));
      expect(rec.text(id)).toMatch(/\r\n39999\r\n40000\r\nLAST-LINE\r\n$/);
    }
  });

  it('holds output while paused and delivers all of it, then the exit, after resume', async () => {
    const id = spawnSh('sleep 0.5; seq 1 200000; echo PAUSED-TAIL');
    manager.pause(id);
    // 1.3 MB is far more than the kernel and stream buffers hold: the child blocks until we read.
    await new Promise((r) => setTimeout(r, 1500));
    expect(rec.exits(id)).toHaveLength(0);
    manager.resume(id);
    await rec.exitOf(id);
    expect(rec.text(id)).toMatch(/\r\n200000\r\nPAUSED-TAIL\r\n$/);
    expect(rec.of(id).at(-1)?.kind).toBe('exit');
  });

  it('delivers the tail of a child that exits while its output is paused', async () => {
    const id = spawnSh('echo SHORT-TAIL');
    manager.pause(id);
    // A few bytes fit in the kernel buffer, so the child ends while nobody reads.
    expect((await rec.exitOf(id)).exit_code).toBe(0);
    expect(rec.text(id)).toContain('SHORT-TAIL');
    expect(rec.of(id).at(-1)?.kind).toBe('exit');
  });
});

describe('memory under a flood', () => {
  it('parses 60 MB of output into the server screen with a small, bounded backlog', { timeout: 120_000 }, async () => {
    // More than xterm's own 50 MB unparsed-write limit: nothing on the path may hold the total.
    const flood = new PtyManager({ projectRoot: temp.project });
    let bytes = 0;
    let tail = '';
    let peakBuffers = 0;
    flood.onOutput((_id, _seq, data) => {
      bytes += data.length;
      tail = (tail + data.toString('latin1')).slice(-32);
    });
    const exited = new Promise<void>((done) => flood.onExit(() => done()));
    const sampler = setInterval(() => (peakBuffers = Math.max(peakBuffers, process.memoryUsage().arrayBuffers)), 20);
    try {
      const r = flood.spawn({
        command: '/bin/sh',
        args: ['-c', "yes 'the quick brown fox jumps over the lazy dog 0123456789' | head -c 60000000; echo; echo FLOOD-END"],
        cwd: temp.project,
      });
      if (!r.ok) throw new Error(r.reason);
      await exited;
      expect(tail.endsWith('FLOOD-END\r\n')).toBe(true);
      expect(bytes).toBeGreaterThan(60_000_000);
      // The screen's backlog is capped near 1 MiB; allow generously for garbage not yet collected.
      expect(peakBuffers).toBeLessThan(32 * 1024 * 1024);
      const snap = await flood.snapshot(r.value.id);
      expect(snap.ok && snap.value.data.includes('FLOOD-END')).toBe(true);
    } finally {
      clearInterval(sampler);
      await flood.dispose();
    }
  });
});
