// One SVG line chart per scale curve: the work size on a log x axis, the median on a linear y
// axis, one point per size. No dependencies: the bench writes these into docs/img/.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const W = 560;
const H = 300;
const PAD = { left: 64, right: 40, top: 36, bottom: 48 };

const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const fmt = (n) => (n === 0 ? '0' : n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2));

/** A "nice" upper bound for the y axis: 1, 2 or 5 times a power of ten above `max`. */
function niceMax(max) {
  if (!(max > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(max));
  return [1, 2, 5, 10].map((m) => m * p).find((v) => v >= max) ?? 10 * p;
}

/**
 * The SVG text of one curve. `points` are `{ x, y }` (x > 0); `xLabel`, `yLabel` name the axes.
 * @example curveSvg({ title: 'scope check vs worktree size', xLabel: 'files', yLabel: 'ms', points: [{ x: 1000, y: 40 }] })
 */
function curveSvg({ title, xLabel, yLabel, points }) {
  const pts = points.filter((p) => p.x > 0 && Number.isFinite(p.y)).sort((a, b) => a.x - b.x);
  const lx = pts.map((p) => Math.log10(p.x));
  const x0 = pts.length > 0 ? Math.floor(Math.min(...lx)) : 0;
  const x1 = Math.max(pts.length > 0 ? Math.ceil(Math.max(...lx)) : 1, x0 + 1);
  const yMax = niceMax(Math.max(...pts.map((p) => p.y), 0));
  const px = (x) => PAD.left + ((Math.log10(x) - x0) / (x1 - x0)) * (W - PAD.left - PAD.right);
  const py = (y) => H - PAD.bottom - (y / yMax) * (H - PAD.top - PAD.bottom);
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="#fff"/>`,
    `<text x="${W / 2}" y="20" text-anchor="middle" font-size="14">${esc(title)}</text>`,
  ];
  for (let k = 0; k <= 4; k++) {
    const y = (yMax * k) / 4;
    out.push(`<line x1="${PAD.left}" x2="${W - PAD.right}" y1="${py(y)}" y2="${py(y)}" stroke="#ddd"/>`, `<text x="${PAD.left - 6}" y="${py(y) + 4}" text-anchor="end">${fmt(y)}</text>`);
  }
  for (let e = Math.ceil(x0); e <= Math.floor(x1); e++) {
    const x = 10 ** e;
    out.push(
      `<line x1="${px(x)}" x2="${px(x)}" y1="${PAD.top}" y2="${H - PAD.bottom}" stroke="#eee"/>`,
      `<text x="${px(x)}" y="${H - PAD.bottom + 16}" text-anchor="middle">${x.toLocaleString('en-US')}</text>`,
    );
  }
  out.push(
    `<text x="${W / 2}" y="${H - 10}" text-anchor="middle">${esc(xLabel)} (log scale)</text>`,
    `<text x="16" y="${H / 2}" text-anchor="middle" transform="rotate(-90 16 ${H / 2})">${esc(yLabel)}</text>`,
  );
  if (pts.length > 0) {
    out.push(`<polyline fill="none" stroke="#2563eb" stroke-width="2" points="${pts.map((p) => `${px(p.x).toFixed(1)},${py(p.y).toFixed(1)}`).join(' ')}"/>`);
    for (const p of pts)
      out.push(
        `<circle cx="${px(p.x).toFixed(1)}" cy="${py(p.y).toFixed(1)}" r="3.5" fill="#2563eb"/>`,
        `<text x="${px(p.x).toFixed(1)}" y="${(py(p.y) - 8).toFixed(1)}" text-anchor="middle" fill="#1e3a8a">${fmt(p.y)}</text>`,
      );
  } else out.push(`<text x="${W / 2}" y="${H / 2}" text-anchor="middle">not measured</text>`);
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

/** Writes each curve as `<dir>/perf-<id>.svg` (atomically); returns the files written. */
export function writeCurves(dir, curves) {
  mkdirSync(dir, { recursive: true });
  return curves.map((c) => {
    const file = join(dir, `perf-${c.id}.svg`);
    const tmp = join(dirname(file), `.${c.id}-${process.pid}.tmp`);
    writeFileSync(tmp, curveSvg(c));
    renameSync(tmp, file);
    return file;
  });
}
