// Denies approval records whose waiting hook died: on start and then periodically, per queue.
import type { ApprovalQueue } from '../runtime/approvals/index.js';

/** How often a queue's stale records are swept: dead waiters are rare, and a late denial costs nothing. */
const SWEEP_INTERVAL_MS = 30_000;

/**
 * Sweeps `queue` now and every {@link SWEEP_INTERVAL_MS}; returns the stop function.
 * @example const stop = sweepPeriodically(queue)
 */
export function sweepPeriodically(queue: ApprovalQueue): () => void {
  const sweep = (): void => {
    try {
      queue.sweep();
    } catch {
      // A failed sweep is retried on the next tick; it never takes the server down.
    }
  };
  queue.sweep();
  const timer = setInterval(sweep, SWEEP_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
