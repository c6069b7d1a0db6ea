// Statistics and the metric record every benchmark returns: median, p90, min, max of the
// samples, an optional baseline measured in the same run (and the ratio against it), and an
// optional target with whether it was met. A metric that could not be measured is an error.

/** median (mean of the middle two for an even count), p90 (nearest rank), min, max. */
export function summarize(samples) {
  const s = samples.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (s.length === 0) throw new Error('no samples');
  const mid = s.length >> 1;
  const median = s.length % 2 === 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
  const p90 = s[Math.min(s.length - 1, Math.ceil(0.9 * s.length) - 1)];
  return { median, p90, min: s[0], max: s.at(-1), samples: s.length };
}

/**
 * A measured metric. `target` is a list of checks `{ on: 'median' | 'ratio' | 'over', op: '<=' | '<' | '>=', value }`
 * (all must hold), checked once the baseline is attached (see `finish`); `over` is the median
 * minus the baseline's median, in the metric's unit (a fixed cost added to the baseline).
 */
export function metric(name, unit, samples, extra = {}) {
  return { name, unit, ...summarize(samples), ...extra };
}

/** A metric that could not be measured: it stays in the table and the JSON with its reason. */
export function failed(name, unit, err, extra = {}) {
  const message = err instanceof Error ? err.message : String(err);
  return { name, unit, error: message.split('\n')[0].slice(0, 400), ...extra };
}

const OPS = { '<=': (a, b) => a <= b, '<': (a, b) => a < b, '>=': (a, b) => a >= b, '>': (a, b) => a > b };

const SYMBOL = { '<=': '≤', '>=': '≥', '<': '<', '>': '>' };

function describe(checks, unit) {
  return checks.map((c) => `${SYMBOL[c.op]} ${c.value.toLocaleString('en-US')}${c.on === 'ratio' ? '×' : ` ${unit}`}${c.on === 'over' ? ' over baseline' : ''}`).join(' and ');
}

/** Rounds the figures in the JSON to a precision that means something on a noisy machine. */
function round(m) {
  const r = (x) => (typeof x === 'number' && Number.isFinite(x) ? Number(x.toPrecision(6)) : x);
  for (const k of ['median', 'p90', 'p95', 'min', 'max', 'ratio', 'over']) if (k in m) m[k] = r(m[k]);
  if (m.baseline) m.baseline.median = r(m.baseline.median);
  return m;
}

/**
 * Resolves baselines by name (a metric's `baselineOf`), computes ratios and target verdicts.
 * A ratio is this metric's median over the baseline's median, whatever the unit.
 */
export function finish(metrics) {
  const byName = new Map(metrics.map((m) => [m.name, m]));
  return metrics.map((m) => {
    const out = { ...m };
    delete out.baselineOf;
    delete out.targetChecks;
    if (m.baselineOf) {
      const b = byName.get(m.baselineOf);
      out.baseline = { name: m.baselineOf, median: b && b.error === undefined ? b.median : null };
      out.ratio = out.baseline.median && m.error === undefined ? m.median / out.baseline.median : null;
      if (m.targetChecks?.some((c) => c.on === 'over')) out.over = out.baseline.median !== null && m.error === undefined ? m.median - out.baseline.median : null;
    }
    if (m.targetChecks) {
      const checks = m.targetChecks;
      const met =
        m.error !== undefined
          ? null
          : checks.every((c) => {
              const v = c.on === 'ratio' ? out.ratio : c.on === 'over' ? out.over : m.median;
              return v !== null && v !== undefined && OPS[c.op](v, c.value);
            });
      out.target = { text: describe(checks, m.unit), checks, met };
    }
    return round(out);
  });
}

const num = (x) => {
  if (x === null || x === undefined) return '';
  const a = Math.abs(x);
  if (a >= 1_000) return Math.round(x).toLocaleString('en-US');
  if (a >= 100) return x.toFixed(0);
  if (a >= 10) return x.toFixed(1);
  return x.toFixed(2);
};

/** The one table: metric, median, p90, min, max, unit, baseline, ratio, target, met? */
export function table(metrics) {
  const head = ['metric', 'median', 'p90', 'min', 'max', 'unit', 'baseline', 'ratio', 'target', 'met?'];
  const rows = metrics.map((m) => {
    if (m.error !== undefined) return [m.name, `error: ${m.error}`, '', '', '', m.unit, m.baseline?.name ?? '', '', m.target?.text ?? '', m.target ? 'n/a' : ''];
    return [
      m.name,
      num(m.median),
      num(m.p90),
      num(m.min),
      num(m.max),
      m.unit,
      m.baseline?.name ?? '',
      m.ratio === null || m.ratio === undefined ? '' : `${m.ratio.toFixed(2)}×`,
      m.target?.text ?? '',
      m.target ? (m.target.met ? 'yes' : 'NO') : '',
    ];
  });
  // An error message can be long: it is the last thing printed on its row rather than widening the column.
  const widths = head.map((h, i) => Math.max(h.length, ...rows.filter((r) => !String(r[1]).startsWith('error:') || i !== 1).map((r) => String(r[i]).length)));
  const line = (cells) =>
    cells
      .map((c, i) => {
        const s = String(c);
        return i === 1 && s.startsWith('error:') ? s : i === 0 || i >= 5 ? s.padEnd(widths[i]) : s.padStart(widths[i]);
      })
      .join('  ')
      .trimEnd();
  const errorLine = (r) => `${String(r[0]).padEnd(widths[0])}  ${r[1]}`;
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map((r) => (String(r[1]).startsWith('error:') ? errorLine(r) : line(r)))].join('\n');
}
