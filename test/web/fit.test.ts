// The terminal geometry that fits a box: whole cells only, inside the gateway's bounds.
import { describe, expect, it } from 'vitest';
import { fitGeometry, MAX_CELLS, SCROLLBAR_PX } from '../../src/web/fit.js';

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
