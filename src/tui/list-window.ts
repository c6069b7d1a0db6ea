// Which slice of the pending list fits on screen: the panel must never draw more lines
// than the terminal has, or Ink can no longer redraw in place and the screen scrolls.
import { useEffect, useState } from 'react';
import { useStdout } from 'ink';

/** Rows assumed when the output stream does not say (not a TTY, or a test stream). */
export const DEFAULT_ROWS = 24;
/** Columns assumed when the output stream does not say. */
const DEFAULT_COLUMNS = 80;

/** A half-open range `[start, end)` of list indexes to draw. */
export type ListWindow = { start: number; end: number };

/**
 * The slice of `count` items, at most `capacity` long, that keeps `selected` in view,
 * as close to the middle as the list allows.
 * @example listWindow(50, 10, 5) // { start: 8, end: 13 }
 */
export function listWindow(count: number, selected: number, capacity: number): ListWindow {
  const size = Math.max(1, Math.min(count, capacity));
  const start = Math.min(Math.max(0, selected - Math.floor(size / 2)), Math.max(0, count - size));
  return { start, end: Math.min(count, start + size) };
}

/** The terminal's size, updated when the terminal is resized. */
export function useTerminalSize(): { rows: number; columns: number } {
  const { stdout } = useStdout();
  const read = () => ({ rows: stdout.rows || DEFAULT_ROWS, columns: stdout.columns || DEFAULT_COLUMNS });
  const [size, setSize] = useState(read);
  useEffect(() => {
    const onResize = () => setSize({ rows: stdout.rows || DEFAULT_ROWS, columns: stdout.columns || DEFAULT_COLUMNS });
    stdout.on('resize', onResize);
    return () => {
      stdout.off('resize', onResize);
    };
  }, [stdout]);
  return size;
}
