// A minimal listener set: subscribe returns a Disposable, and a listener that throws
// neither stops the others nor corrupts the caller's state; its error still surfaces.
import type { Disposable } from './types.js';

/** Listeners of one event type, called in subscription order. */
export class Listeners<A extends unknown[]> {
  private readonly set = new Set<(...args: A) => void>();

  /** Subscribes; dispose the result to unsubscribe. */
  add(listener: (...args: A) => void): Disposable {
    // Wrapped so the same function subscribed twice is two subscriptions, each disposable once.
    const entry = (...args: A): void => listener(...args);
    this.set.add(entry);
    return { dispose: () => void this.set.delete(entry) };
  }

  /** Calls every listener; an exception is rethrown on a fresh stack, as a bug should be. */
  fire(...args: A): void {
    for (const listener of [...this.set]) {
      try {
        listener(...args);
      } catch (err) {
        queueMicrotask(() => {
          throw err;
        });
      }
    }
  }

  /** Drops every listener. */
  clear(): void {
    this.set.clear();
  }
}
