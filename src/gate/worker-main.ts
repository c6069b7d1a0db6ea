// The gate in a worker thread, for long-lived hosts (`gatehouse serve`, a sandboxed `gatehouse
// run`): hook calls there wait on file locks synchronously, as hook processes do, and in a
// worker such a wait stalls only other hook calls, never the host's terminals and clients.
// Built as dist/hook/gate-worker.js; messages are `{id, req}` in and `{id, out}` out.
import { parentPort } from 'node:worker_threads';
import { runHookGate, type HookRequest } from './hook-gate.js';

parentPort?.on('message', (m: { id: number; req: HookRequest }) => {
  runHookGate(m.req).then(
    (out) => parentPort?.postMessage({ id: m.id, out }),
    (err: unknown) => parentPort?.postMessage({ id: m.id, error: err instanceof Error ? err.message : String(err) }),
  );
});
