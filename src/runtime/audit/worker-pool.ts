// Worker threads that check ranges of a log in parallel while the caller joins the results in
// order: the file verify hands it ranges of the file, the team verify pages of rows as they arrive.
import { Worker, type MessagePort } from 'node:worker_threads';

/**
 * Tasks sent ahead to each worker: it starts the next as soon as it has answered one, without
 * waiting for this thread to take the answer and send another.
 */
const DEPTH = 2;

/**
 * Detaches a throwaway ArrayBuffer. V8 compiles typed-array code on the assumption that no
 * ArrayBuffer in the thread has ever been detached, and when the first one is, it throws away
 * every optimized function that relied on that. A buffer transferred by postMessage is detached:
 * the first page sent (team verify) or result answered (both verifies) would do that in the middle
 * of the run, and each thread would compile its hot code twice. Done before any of it is hot, the
 * code is compiled once, with the checks a detached buffer needs. Called by both ends of the pool.
 */
function settleBufferDetaching(): void {
  const b = new ArrayBuffer(8);
  structuredClone(b, { transfer: [b] });
}

/**
 * Sends each task from `tasks` to one of at most `threads` workers running `workerFile` (at most
 * {@link DEPTH} unanswered per worker) and hands the answers to `onResult` in task order. Stops
 * taking tasks once `stopped()` says so; rejects when a worker fails. `workerData` goes to every
 * worker once, at its start; the buffers `transfer` names in a task move to its worker, uncopied.
 * @example await runInOrder(file, 2, ranges, (r) => joiner.add(r), () => joiner.broken)
 */
export async function runInOrder<T, R>(
  workerFile: string,
  threads: number,
  tasks: Iterable<T> | AsyncIterable<T>,
  onResult: (r: R) => void,
  stopped: () => boolean,
  { workerData, transfer }: { workerData?: unknown; transfer?: (task: T) => ArrayBuffer[] } = {},
): Promise<void> {
  settleBufferDetaching();
  // Each worker's unanswered tasks, by index, in the order it answers them.
  const queues = new Map<Worker, number[]>();
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
  /** The worker with the fewest unanswered tasks, if one can take another. */
  const pick = (): Worker | undefined => {
    let best: Worker | undefined;
    for (const [w, q] of queues) if (q.length < DEPTH && (best === undefined || q.length < queues.get(best)!.length)) best = w;
    return best;
  };
  const start = (): void => {
    const w = new Worker(workerFile, { workerData });
    const queue: number[] = [];
    w.on('message', (r: R) => {
      results.set(queue.shift()!, r);
      while (results.has(joined)) {
        const next = results.get(joined)!;
        results.delete(joined++);
        onResult(next);
      }
      notify();
    });
    w.on('error', (err) => {
      failure ??= err;
      notify();
    });
    w.on('exit', (code) => {
      if (done) return;
      failure ??= new Error(`audit verify worker exited with code ${code}`);
      notify();
    });
    queues.set(w, queue);
  };
  try {
    for await (const task of tasks) {
      if (stopped()) break;
      // A new worker while every one is busy: spread the work before queueing it.
      const free = pick();
      if (queues.size < threads && (free === undefined || queues.get(free)!.length > 0)) start();
      await until(() => pick() !== undefined || stopped());
      if (stopped()) break;
      const w = pick()!;
      queues.get(w)!.push(sent++);
      w.postMessage(task, transfer?.(task));
    }
    await until(() => joined === sent || stopped());
  } finally {
    done = true;
    await Promise.all([...queues.keys()].map((w) => w.terminate()));
  }
}

/**
 * The worker side of {@link runInOrder} for a range check: answers each task with `check`'s result
 * (its buffers transferred: its pieces, and a `spare` it gives back to be used again), or
 * {ok: false} when it throws, so that the caller verifies serially.
 */
export function answerRanges<T>(port: MessagePort | null, check: (task: T) => ({ ok: false } | { ok: true; pieces: ArrayBuffer }) & { spare?: ArrayBuffer }): void {
  settleBufferDetaching();
  port?.on('message', (task: T) => {
    let result: ReturnType<typeof check>;
    try {
      result = check(task);
    } catch {
      result = { ok: false };
    }
    port.postMessage(result, [...(result.ok ? [result.pieces] : []), ...(result.spare ? [result.spare] : [])]);
  });
}
