// The folder watch under every approval wait: fs.watch drives it, and the poll beside it runs at
// the fast period only where fs.watch does not cover every folder (a waiting cold hook wakes
// once a second, not twenty times, while it waits for a person).
import { existsSync, linkSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BACKSTOP_POLL_MS, watchDirs, type DirWatch } from '../../../src/runtime/approvals/dir-watch.js';

let dir: string;
let watch: DirWatch | null = null;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gh-dirwatch-'));
});
afterEach(() => {
  watch?.close();
  watch = null;
  rmSync(dir, { recursive: true, force: true });
});

/** Resolves once `n` ticks have come, or with how many came by `ms`. */
function ticks(n: number, ms: number): { onTick: () => void; counted: Promise<number> } {
  let count = 0;
  let done: (n: number) => void = () => {};
  const counted = new Promise<number>((resolve) => {
    done = resolve;
    setTimeout(() => resolve(count), ms);
  });
  return {
    onTick: () => {
      if (++count >= n) done(count);
    },
    counted,
  };
}

describe('watchDirs', () => {
  it('polls only as a backstop while fs.watch covers every folder, and still sees a new file at once', async () => {
    const a = join(dir, 'a');
    const b = join(dir, 'b');
    mkdirSync(a);
    mkdirSync(b);
    // A backstop longer than the test: any tick below can only have come from fs.watch.
    const t = ticks(1, 10_000);
    watch = watchDirs([a, b], t.onTick, { pollMs: 50, backstopMs: 60_000, fsWatch: true });
    expect(watch.pollMs).toBe(60_000);
    writeFileSync(join(b, 'answer.json'), '{}');
    expect(await t.counted).toBe(1);
  });

  it('with names, wakes for the entries it takes and not for the others in the same folder', async () => {
    const mine = join(dir, 'ap-mine.json');
    let mineTicks = 0;
    const seenMine = new Promise<void>((resolve) => {
      const onTick = (): void => {
        mineTicks++;
        if (existsSync(mine)) resolve();
      };
      watch = watchDirs([dir], onTick, { pollMs: 50, backstopMs: 60_000, fsWatch: true, names: (n) => n === 'ap-mine.json' });
    });
    const all = ticks(1, 10_000);
    const other = watchDirs([dir], all.onTick, { pollMs: 50, backstopMs: 60_000, fsWatch: true });
    try {
      // Another request's answer, written as every answer is: a dot-temp file, linked, then removed.
      const tmp = join(dir, '.ap-other.json.1.tmp');
      writeFileSync(tmp, '{}');
      linkSync(tmp, join(dir, 'ap-other.json'));
      rmSync(tmp);
      // The unfiltered watch has seen it; the filtered one got the same events, and let them pass.
      expect(await all.counted).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(mineTicks).toBe(0);
      writeFileSync(mine, '{}');
      await seenMine;
      expect(mineTicks).toBeGreaterThan(0);
    } finally {
      other.close();
    }
  });

  it('defaults the backstop to once a second, never below the fast period', () => {
    watch = watchDirs([dir], () => {}, { pollMs: 50, fsWatch: true });
    expect(watch.pollMs).toBe(BACKSTOP_POLL_MS);
    watch.close();
    watch = watchDirs([dir], () => {}, { pollMs: 5_000, backstopMs: 10, fsWatch: true });
    expect(watch.pollMs).toBe(5_000);
  });

  it('polls at the fast period when fs.watch is off, and the poll alone notices', async () => {
    const t = ticks(3, 10_000);
    watch = watchDirs([dir], t.onTick, { pollMs: 20, fsWatch: false });
    expect(watch.pollMs).toBe(20);
    expect(await t.counted).toBe(3);
  });

  it('polls every folder at the fast period when one of them cannot be watched', async () => {
    const missing = join(dir, 'not-yet');
    const t = ticks(3, 10_000);
    watch = watchDirs([dir, missing], t.onTick, { pollMs: 20, backstopMs: 60_000, fsWatch: true });
    expect(watch.pollMs).toBe(20);
    expect(await t.counted).toBe(3);
  });

  it('stops every tick once closed', async () => {
    const t = ticks(1, 300);
    watch = watchDirs([dir], t.onTick, { pollMs: 10, fsWatch: false });
    watch.close();
    writeFileSync(join(dir, 'late.json'), '{}');
    expect(await t.counted).toBe(0);
  });
});
