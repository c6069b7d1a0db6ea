// How a long-lived host runs the gate for a hook call: in a worker thread when the built worker
// is there (a lock wait then stalls no terminal or client), else in process (tests from source).
import { existsSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import type { HookOutput } from '../adapters/adapter.js';
import { runHookGate, type HookRequest } from '../gate/hook-gate.js';

/** Runs one hook call; rejects only when the worker running it died (the caller refuses, or falls back). */
export type GateRunner = (req: HookRequest) => Promise<HookOutput>;

/** A gate runner and what ends it. */
export interface HostedGate {
  run: GateRunner;
  /** Ends the worker; calls still waiting reject. */
  close(): Promise<void>;
}

type Reply = { id: number; out?: HookOutput; error?: string };

/**
 * The gate for a host: in the worker built at `workerFile` (dist/hook/gate-worker.mjs beside the
 * hook bundle), started on the first call and again after it dies; in process when that file is
 * not there.
 * @example const gate = hostedGate(join(dirname(hookBundle), 'gate-worker.mjs')); await gate.run(req)
 */
export function hostedGate(workerFile: string | null): HostedGate {
  if (workerFile === null || !existsSync(workerFile)) return { run: runHookGate, close: async () => {} };
  let worker: Worker | null = null;
  let nextId = 1;
  const pending = new Map<number, { resolve: (out: HookOutput) => void; reject: (err: Error) => void }>();
  const failAll = (why: string): void => {
    for (const p of pending.values()) p.reject(new Error(why));
    pending.clear();
  };
  const start = (): Worker => {
    const w = new Worker(workerFile);
    // A waiting call keeps the host alive, an idle worker does not.
    w.unref();
    w.on('message', (m: Reply) => {
      const p = pending.get(m.id);
      if (p === undefined) return;
      pending.delete(m.id);
      if (m.out !== undefined) p.resolve(m.out);
      else p.reject(new Error(m.error ?? 'the gate worker gave no answer'));
      if (pending.size === 0) w.unref();
    });
    w.on('error', (err) => failAll(`the gate worker failed: ${err.message}`));
    w.on('exit', (code) => {
      if (worker === w) worker = null;
      failAll(`the gate worker exited (${code})`);
    });
    return w;
  };
  return {
    run(req) {
      worker ??= start();
      const w = worker;
      const id = nextId++;
      const { signal, ...call } = req;
      return new Promise<HookOutput>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        w.ref();
        w.postMessage({ id, req: call });
        // A signal cannot cross to the worker: a message cancels the call there (at once if it is aborted already).
        if (signal?.aborted === true) w.postMessage({ cancel: id });
        else signal?.addEventListener('abort', () => w.postMessage({ cancel: id }), { once: true });
      });
    },
    async close() {
      const w = worker;
      worker = null;
      failAll('the gate worker was closed');
      if (w !== null) await w.terminate();
    },
  };
}
