// Process helpers for tests that check children and grandchildren really die: liveness
// (a zombie counts as dead), waiting for death, and waiting for a file a child writes.
import { readFileSync } from 'node:fs';

/** True while `pid` is running; a zombie that no init has reaped yet counts as dead. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw err;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** Polls until `pid` is dead; the time it was first seen dead, or null if alive at `until`. */
export async function deadAt(pid: number, until: number): Promise<number | null> {
  for (;;) {
    if (!isAlive(pid)) return Date.now();
    if (Date.now() > until) return null;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Waits until `file` holds a complete line; its text. */
export async function waitForFile(file: string, timeoutMs = 20_000): Promise<string> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      const text = readFileSync(file, 'utf8');
      if (text.endsWith('\n')) return text;
    } catch {
      // not written yet
    }
    if (Date.now() > until) throw new Error(`${file} was not written within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
