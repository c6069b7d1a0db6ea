// The server-held screen on its own: it parses in order, catches up on demand, skips
// ahead under a flood with bounded memory, keeps resizes in order, and dies cleanly.
import { describe, expect, it } from 'vitest';
import { Screen, SKIP_AT_BYTES } from '../../../src/gateway/pty/screen.js';

const line = (n: number): string => `line-${String(n).padStart(7, '0')}\r\n`;

/** Writes lines `from..to` as chunks of `perChunk` lines, numbering chunks from `seq`. */
function feed(screen: Screen, from: number, to: number, perChunk: number, seq = 1): number {
  for (let n = from; n <= to; n += perChunk) {
    let text = '';
    for (let k = n; k < Math.min(n + perChunk, to + 1); k++) text += line(k);
    screen.write(seq++, Buffer.from(text));
  }
  return seq - 1;
}

describe('the server screen', () => {
  it('shows every chunk once settled, and says it skipped nothing when it kept up', async () => {
    const screen = new Screen(40, 10, 100);
    const last = feed(screen, 1, 50, 5);
    expect(await screen.settled()).toBe(true);
    const { data } = screen.serialize();
    expect(data).toContain('line-0000001');
    expect(data).toContain('line-0000050');
    expect(screen.progress()).toEqual({ parsedSeq: last, queuedBytes: 0, skippedBytes: 0 });
    screen.dispose();
  });

  it('skips the oldest output under a flood, keeps the newest, and never queues past the cap', async () => {
    const screen = new Screen(40, 10, 100);
    let peak = 0;
    let seq = 1;
    // 10 MB in one synchronous burst: the parser gets no chance to run in between.
    for (let n = 1; n <= 600_000; n += 1000) {
      seq = feed(screen, n, n + 999, 1000, seq) + 1;
      peak = Math.max(peak, screen.progress().queuedBytes);
    }
    expect(peak).toBeLessThanOrEqual(SKIP_AT_BYTES);
    const before = screen.progress();
    const total = 600_000 * line(1).length;
    expect(before.skippedBytes).toBeGreaterThanOrEqual(total - SKIP_AT_BYTES);
    expect(await screen.settled()).toBe(true);
    const { data } = screen.serialize();
    expect(data).toContain('line-0600000');
    expect(data).not.toContain('line-0000001');
    // The kept part starts at a line start: no torn line number precedes the first full one.
    const firstKept = data.split('\r\n').find((l) => l.length > 0) ?? '';
    expect(firstKept).toMatch(/^line-\d{7}$/);
    screen.dispose();
  });

  it('applies a resize in order with the output around it, also across a skip', async () => {
    const screen = new Screen(80, 10, 100);
    screen.write(1, Buffer.from('a'));
    screen.resize(30, 10);
    // Column 50 exists at 80 columns, not at 30: laid out after the resize, Z lands in column 30.
    // (Laid out before it, Z would sit past the new edge and be cut off by the shrink.)
    screen.write(2, Buffer.from('\x1b[50GZ'));
    expect(await screen.settled()).toBe(true);
    const { data, cols } = screen.serialize();
    expect(cols).toBe(30);
    expect(data).toContain('a\u001b[28CZ');
    // A resize queued behind output that is then skipped still applies.
    screen.resize(50, 12);
    feed(screen, 1, 300_000, 1000, 3);
    expect(screen.progress().skippedBytes).toBeGreaterThan(0);
    expect(await screen.settled()).toBe(true);
    expect(screen.serialize()).toMatchObject({ cols: 50, rows: 12 });
    screen.dispose();
  });

  it('answers a waiter false when disposed first, and ignores writes after', async () => {
    const screen = new Screen(40, 10, 100);
    feed(screen, 1, 20_000, 1000);
    const waiting = screen.settled();
    screen.dispose();
    expect(await waiting).toBe(false);
    screen.write(99, Buffer.from('late'));
    expect(await screen.settled()).toBe(false);
  });
});
