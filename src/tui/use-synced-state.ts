// React state that key handlers can also read synchronously. Keys typed or pasted in
// one burst can arrive before React re-subscribes the input handler with fresh state.
import { useCallback, useRef, useState } from 'react';

/**
 * Like `useState`, plus a getter that always returns the latest value set, even
 * inside a handler closure from an earlier render.
 * @example const [ui, setUi, getUi] = useSyncedState({ mode: 'browse' });
 */
export function useSyncedState<T>(initial: T): [T, (next: T) => void, () => T] {
  const latest = useRef(initial);
  const [value, setValue] = useState(initial);
  const set = useCallback((next: T) => {
    latest.current = next;
    setValue(next);
  }, []);
  const get = useCallback(() => latest.current, []);
  return [value, set, get];
}
