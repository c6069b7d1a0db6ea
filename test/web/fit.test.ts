// The terminal geometry that fits a box: whole cells only, inside the gateway's bounds; on a phone,
// 80 columns at least, in a font small enough to fit them or at full size in a box that scrolls.
import { describe, expect, it } from 'vitest';
import { fitGeometry, fitTerminal, MAX_CELLS, MIN_FIT_FONT_PX, PHONE_MIN_COLS, SCROLLBAR_PX } from '../../src/web/fit.js';

describe('fitGeometry', () => {
  it('fits whole cells, leaving room for the scrollbar', () => {
    expect(fitGeometry({ width: 800 + SCROLLBAR_PX, height: 408 }, { width: 10, height: 17 })).toEqual({ cols: 80, rows: 24 });
    expect(fitGeometry({ width: 809 + SCROLLBAR_PX, height: 424 }, { width: 10, height: 17 })).toEqual({ cols: 80, rows: 24 });
  });

  it('says nothing for a box or a cell not measured yet', () => {
    expect(fitGeometry({ width: 0, height: 400 }, { width: 10, height: 17 })).toBeNull();
    expect(fitGeometry({ width: 800, height: 400 }, { width: 0, height: 17 })).toBeNull();
    expect(fitGeometry({ width: 800, height: 400 }, { width: Number.NaN, height: 17 })).toBeNull();
  });

  it('stays inside the geometry the gateway accepts', () => {
    expect(fitGeometry({ width: 20, height: 5 }, { width: 10, height: 17 })).toEqual({ cols: 2, rows: 1 });
    expect(fitGeometry({ width: 1e6, height: 1e6 }, { width: 1, height: 1 })).toEqual({ cols: MAX_CELLS, rows: MAX_CELLS });
  });
});

describe('fitTerminal', () => {
  /** DejaVu Sans Mono's cell at 13 px, as Chromium draws it. */
  const CELL_13 = { width: 7.8, height: 17 };
  const phone = (shrink: boolean) => ({ fontPx: 13, baseFontPx: 13, minCols: PHONE_MIN_COLS, shrink });

  it('on a wide box, fits cells at the full-size font, as fitGeometry does', () => {
    const box = { width: 1000, height: 700 };
    expect(fitTerminal(box, CELL_13, { ...phone(true), minCols: 0 })).toEqual({ ...fitGeometry(box, CELL_13), fontPx: 13 });
    expect(fitTerminal({ width: 699, height: 700 }, CELL_13, phone(true))).toEqual({ cols: 87, rows: 41, fontPx: 13 });
  });

  it('shrinks the font in quarter pixels until 80 columns fit a phone, with the rows of that font', () => {
    const g = fitTerminal({ width: 390, height: 700 }, CELL_13, phone(true));
    expect(g).toEqual({ cols: PHONE_MIN_COLS, rows: 69, fontPx: 7.75 });
    const cellWidth = (CELL_13.width * 7.75) / 13;
    expect(PHONE_MIN_COLS * cellWidth + SCROLLBAR_PX).toBeLessThanOrEqual(390);
    expect(PHONE_MIN_COLS * ((CELL_13.width * 8) / 13) + SCROLLBAR_PX).toBeGreaterThan(390);
  });

  it('gives the same answer from a cell measured at the shrunk font', () => {
    const shrunk = { width: (CELL_13.width * 7.75) / 13, height: (CELL_13.height * 7.75) / 13 };
    expect(fitTerminal({ width: 390, height: 700 }, shrunk, { ...phone(true), fontPx: 7.75 })).toEqual({ cols: PHONE_MIN_COLS, rows: 69, fontPx: 7.75 });
    // And back to full size once the box is wide enough.
    expect(fitTerminal({ width: 1000, height: 700 }, shrunk, { ...phone(true), fontPx: 7.75 })).toMatchObject({ fontPx: 13, rows: 41 });
  });

  it('without shrinking, keeps 80 columns at full size (the box scrolls sideways)', () => {
    expect(fitTerminal({ width: 390, height: 700 }, CELL_13, phone(false))).toEqual({ cols: PHONE_MIN_COLS, rows: 41, fontPx: 13 });
  });

  it('shrinks no further than the smallest legible font', () => {
    expect(fitTerminal({ width: 200, height: 700 }, CELL_13, phone(true))).toMatchObject({ cols: PHONE_MIN_COLS, fontPx: MIN_FIT_FONT_PX });
  });

  it('says nothing before the terminal is measurable', () => {
    expect(fitTerminal({ width: 0, height: 700 }, CELL_13, phone(true))).toBeNull();
    expect(fitTerminal({ width: 390, height: 700 }, CELL_13, { ...phone(true), fontPx: 0 })).toBeNull();
  });
});
