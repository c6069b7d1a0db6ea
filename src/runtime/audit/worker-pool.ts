// Worker threads that check ranges of a log in parallel while the caller joins the results in
// order: the file verify hands it ranges of the file, the team verify pages of rows as they arrive.
import { Worker, type MessagePort } from 'node:worker_threads';

/**
 * Sends each task from `tasks` to one of at most `threads` workers running `workerFile` (one task
 * per worker at a time, so at most `threads` are unanswered) and hands the answers to `onResult`
 * in task order. Stops taking tasks once `stopped()` says so; rejects when a worker fails.
 * @example await runInOrder(file, 2, ranges, (r) => joiner.add(r), () => joiner.broken)
 */
export async function runInOrder<T, R>(workerFile: string, threads: number, tasks: Iterable<T> | AsyncIterable<T>, onResult: (r: R) => void, stopped: () => boolean): Promise<void> {
  const workers: Worker[] = [];
  const idle: Worker[] = [];
  const results = new Map<number, R>();
  let sent = 0;
  let joined = 0;
  let failure: Error | null = null;
  let done = false;
  let wake: (() => void) | null = null;
  const notify = (): void => {
    const w = wake;
    wake = null;
    w?.();
  };
  const until = async (ready: () => boolean): Promise<void> => {
    while (failure === null && !ready()) await new Promise<void>((resolve) => (wake = resolve));
    if (failure !== null) throw failure;
  };
  const start = (): void => {
    const w = new Worker(workerFile);
    w.on('error', (err) => {
      failure ??= err;
      notify();
    });
    w.on('exit', (code) => {
      if (done) return;
      failure ??= new Error(`audit verify worker exited with code ${code}`);
      notify();
    });
    workers.push(w);
    idle.push(w);
  };
  try {
    for await (const task of tasks) {
      if (stopped()) break;
      if (idle.length === 0 && workers.length < threads) start();
      await until(() => idle.length > 0 || stopped());
      if (stopped()) break;
      const w = idle.pop()!;
      const index = sent++;
      w.once('message', (r: R) => {
        results.set(index, r);
        idle.push(w);
        while (results.has(joined)) {
          const next = results.get(joined)!;
          results.delete(joined++);
          onResult(next);
        }
        notify();
      });
      w.postMessage(task);
    }
    await until(() => joined === sent || stopped());
  } finally {
    done = true;
    await Promise.all(workers.map((w) => w.terminate()));
  }
}

/**
 * The worker side of {@link runInOrder} for a range check: answers each task with `check`'s result
 * (its buffers transferred), or {ok: false} when it throws, so that the caller verifies serially.
 */
export function answerRanges<T>(port: MessagePort | null, check: (task: T) => { ok: false } | { ok: true; leaves: ArrayBuffer; subtree: ArrayBuffer | null }): void {
  port?.on('message', (task: T) => {
    let result;
    try {
      result = check(task);
    } catch {
      result = { ok: false as const };
    }
    port.postMessage(result, result.ok ? [result.leaves, ...(result.subtree ? [result.subtree] : [])] : []);
  });
}
