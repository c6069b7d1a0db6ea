// The terminal's geometry from the size of its box and of one character cell, the job
// xterm's fit addon does, in a few lines and without reaching into xterm's internals.

/** xterm's vertical scrollbar takes this much of the box's width (its default width). */
export const SCROLLBAR_PX = 14;
/** The gateway refuses geometry outside 1..1000; stay inside it. */
export const MAX_CELLS = 1000;
/** Narrower than this and a shell prompt is unusable; the box is probably hidden. */
const MIN_COLS = 2;

/** A width and height in CSS pixels. */
export interface Size {
  width: number;
  height: number;
}

/**
 * How many columns and rows of `cell` fit into `box`; null when either is not measurable
 * (zero-sized: hidden, or not rendered yet).
 * @example fitGeometry({ width: 814, height: 408 }, { width: 10, height: 17 }) // { cols: 80, rows: 24 }
 */
export function fitGeometry(box: Size, cell: Size, scrollbarPx = SCROLLBAR_PX): { cols: number; rows: number } | null {
  if (!(cell.width > 0 && cell.height > 0 && box.width > 0 && box.height > 0)) return null;
  const cols = Math.floor((box.width - scrollbarPx) / cell.width);
  const rows = Math.floor(box.height / cell.height);
  return { cols: Math.min(MAX_CELLS, Math.max(MIN_COLS, cols)), rows: Math.min(MAX_CELLS, Math.max(1, rows)) };
}
