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

/**
 * On a narrow (phone) screen the PTY keeps at least this many columns: agents' TUIs (Claude
 * Code, Codex) and most CLI output lay out for 80 and wrap into a mess below it.
 */
export const PHONE_MIN_COLS = 80;
/**
 * Fit-to-width shrinks the font no further than this (CSS px; 18 device pixels on a 3× phone
 * screen, still legible); where 80 columns need less, the box scrolls sideways the rest.
 */
export const MIN_FIT_FONT_PX = 6;
/** Fitted font sizes step by this much, so a resize of a pixel or two does not re-render the terminal. */
const FONT_STEP_PX = 0.25;

/** How the terminal is to be sized: its font now and at full size, its least columns, and whether it may shrink. */
export interface FitPolicy {
  /** The font size `cell` was measured at. */
  fontPx: number;
  /** The font size the terminal uses whenever its columns fit at it. */
  baseFontPx: number;
  /** The fewest columns to give the PTY, even when the box is narrower (it then scrolls or shrinks). */
  minCols: number;
  /** Shrink the font until `minCols` fit the box, rather than scroll sideways at full size. */
  shrink: boolean;
}

/**
 * The terminal's geometry and font for `box`: as many columns as fit at the full-size font
 * but at least `minCols`; when those do not fit, a font small enough that they do (if
 * `shrink`, down to MIN_FIT_FONT_PX), else the full-size font in a box that scrolls. Cells
 * scale with the font. Null when the box or the cell is not measurable.
 * @example fitTerminal({ width: 390, height: 700 }, { width: 7.8, height: 17 }, { fontPx: 13, baseFontPx: 13, minCols: 80, shrink: true })
 * // { cols: 80, rows: 69, fontPx: 7.75 }
 */
export function fitTerminal(box: Size, cell: Size, policy: FitPolicy, scrollbarPx = SCROLLBAR_PX): { cols: number; rows: number; fontPx: number } | null {
  if (!(policy.fontPx > 0 && policy.baseFontPx > 0)) return null;
  const atBase = scaleCell(cell, policy.baseFontPx / policy.fontPx);
  const natural = fitGeometry(box, atBase, scrollbarPx);
  if (natural === null) return null;
  if (natural.cols >= policy.minCols) return { ...natural, fontPx: policy.baseFontPx };
  if (!policy.shrink) return { cols: policy.minCols, rows: natural.rows, fontPx: policy.baseFontPx };
  const wanted = ((box.width - scrollbarPx) / (policy.minCols * atBase.width)) * policy.baseFontPx;
  const fontPx = Math.max(MIN_FIT_FONT_PX, Math.floor(wanted / FONT_STEP_PX) * FONT_STEP_PX);
  // Exactly `minCols`: the slack a font step leaves is not worth a PTY that changes width with it.
  const fitted = fitGeometry(box, scaleCell(atBase, fontPx / policy.baseFontPx), scrollbarPx) ?? natural;
  return { cols: policy.minCols, rows: fitted.rows, fontPx };
}

function scaleCell(cell: Size, factor: number): Size {
  return { width: cell.width * factor, height: cell.height * factor };
}
