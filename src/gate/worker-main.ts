// The gate in a worker thread, for long-lived hosts (`gatehouse serve`, a sandboxed `gatehouse
// run`): hook calls there wait on file locks synchronously, as hook processes do, and in a
// worker such a wait stalls only other hook calls, never the host's terminals and clients.
// Built as dist/hook/gate-worker.js; messages are `{id, req}` (a call) and `{cancel: id}` (its
// caller is gone) in, `{id, out}` out.
import { fileURLToPath } from 'node:url';
import { parentPort, threadId } from 'node:worker_threads';
import { setLockThread } from '../runtime/audit/lock.js';
import { dropEndedSessionCaches, watchWorktrees } from '../runtime/scope-cache.js';
import { dropEndedSessionFiles } from '../runtime/verified-cache.js';
import { loadInotify } from '../runtime/inotify.js';
import { sessionOver } from '../runtime/session-layout.js';
import { runHookGate, type HookRequest } from './hook-gate.js';

/** How often this thread lets go of what it keeps for sessions that have ended. */
const SWEEP_MS = 30_000;

// Locks this thread takes name it, so a lock it left when it died is told from a live one's.
setLockThread(threadId);
// This thread lives on between Stops: its scope checks watch their worktrees (dist/native, built beside dist/hook).
watchWorktrees(loadInotify(fileURLToPath(new URL('../native/inotify.node', import.meta.url))));
// What it keeps of a session that ended goes soon after: its watch, its cache, its parsed baseline.
// Each session's meta.json is read once a sweep; a sweep that fails leaves things as they were,
// and never takes this thread (and every hook call) down with it.
setInterval(() => {
  const seen = new Map<string, boolean>();
  const over = (dir: string): boolean => seen.get(dir) ?? seen.set(dir, sessionOver(dir)).get(dir)!;
  try {
    dropEndedSessionCaches(over);
    dropEndedSessionFiles(over);
  } catch {
    // Best effort: the next sweep tries again, and the caches stay bounded meanwhile.
  }
}, SWEEP_MS).unref();

/** The calls running now, each with what cancels it. */
const running = new Map<number, AbortController>();

parentPort?.on('message', (m: { id: number; req: Omit<HookRequest, 'signal'> } | { cancel: number }) => {
  if ('cancel' in m) return void running.get(m.cancel)?.abort();
  const controller = new AbortController();
  running.set(m.id, controller);
  runHookGate({ ...m.req, signal: controller.signal })
    .then(
      (out) => parentPort?.postMessage({ id: m.id, out }),
      (err: unknown) => parentPort?.postMessage({ id: m.id, error: err instanceof Error ? err.message : String(err) }),
    )
    .finally(() => running.delete(m.id));
});
