// waitUntil's deadline: it ends the wait when the clock `check` reads says so, even if the timer
// fired a little before that clock got there (the poll beside fs.watch may be a second away).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { waitUntil } from '../../../src/runtime/approvals/wait.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gh-wait-'));
});
afterEach(() => {
  vi.useRealTimers();
  rmSync(dir, { recursive: true, force: true });
});

describe('waitUntil', () => {
  it('sets the deadline timer again when it fired before the clock check reads reached the deadline', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'setImmediate', 'clearImmediate', 'Date'] });
    // The clock check reads runs 200 ms behind the timers' clock once the wait has started.
    let behind = 0;
    const nowMs = (): number => Date.now() - behind;
    const deadlineMs = Date.now() + 100;
    let outcome: string | null = null;
    const wait = waitUntil(() => (nowMs() >= deadlineMs ? 'expired' : null), { dirs: [dir], deadlineMs, nowMs, fsWatch: true, what: 'a test' }).then((v) => (outcome = v));
    behind = 200;
    await vi.advanceTimersByTimeAsync(100); // the timer fires: 200 ms to go by check's clock
    expect(outcome).toBeNull();
    behind = 0;
    // Well before the backstop poll (1 s): only the deadline timer, set again, can end it here.
    await vi.advanceTimersByTimeAsync(250);
    expect(outcome).toBe('expired');
    await wait;
  });
});
