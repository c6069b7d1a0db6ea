// Keeps the panel's view of the approval queue current: re-reads it whenever any
// process changes a record, and once a second so time left counts down and expiries drop.
import { useCallback, useEffect, useRef, useState } from 'react';
import type { ApprovalQueue, PendingApproval } from '../runtime/approvals/index.js';

/** How often the clock ticks: time left is shown to the second. */
const TICK_MS = 1000;

export interface PendingView {
  /** Unresolved, unexpired approvals, oldest first. */
  items: PendingApproval[];
  /** The time the view was taken, in epoch milliseconds. */
  nowMs: number;
  /** Re-reads the queue now (after this process resolved something); returns the list it read. */
  refresh: () => PendingApproval[];
}

/**
 * Subscribes to `queue.watch` for the component's lifetime and ticks a clock. The tick
 * also re-lists, because an item that expires changes no record and so fires no watch.
 */
export function usePending(queue: ApprovalQueue, now: () => Date): PendingView {
  // A ref, so a caller passing a fresh clock function each render does not resubscribe.
  const clock = useRef(now);
  clock.current = now;
  const [view, setView] = useState(() => ({ items: queue.list(), nowMs: now().getTime() }));
  const refresh = useCallback(() => {
    const items = queue.list();
    setView({ items, nowMs: clock.current().getTime() });
    return items;
  }, [queue]);

  useEffect(() => {
    // Handlers that must return nothing: the list is for callers of `refresh` only.
    const reread = (): void => void refresh();
    reread();
    const watcher = queue.watch(reread);
    const timer = setInterval(reread, TICK_MS);
    return () => {
      clearInterval(timer);
      watcher.close();
    };
  }, [queue, refresh]);

  return { ...view, refresh };
}
