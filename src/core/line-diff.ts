// A line diff for people: what a write or an edit changes in a file, as unified-diff hunks
// with a few lines of context. Myers' O(ND) algorithm, after trimming the common ends.

/** One line of a diff: kept (` `), removed (`-`) or added (`+`). */
type DiffOp = ' ' | '-' | '+';

/** A unified diff of two texts. */
export interface LineDiff {
  /** `@@ -a,b +c,d @@` hunks, each line prefixed by its op; empty when the texts are equal. */
  text: string;
  added: number;
  removed: number;
}

/** Lines of context around each change, as `diff -u` shows. */
const CONTEXT_LINES = 3;
/**
 * Most edit steps searched for a shortest diff. Past it the middle is shown removed whole and
 * added whole: still a true diff, only not the shortest, and the search stays within a few
 * milliseconds on the largest file a card reads.
 */
const MAX_EDIT_STEPS = 2_000;

/** A text's lines; a final line break ends the last line rather than starting another. */
function linesOf(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

/** The ops turning `a` into `b` (Myers), or null past {@link MAX_EDIT_STEPS}. */
function myers(a: readonly string[], b: readonly string[]): DiffOp[] | null {
  const n = a.length;
  const m = b.length;
  const max = Math.min(n + m, MAX_EDIT_STEPS);
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && (v[offset + k - 1] ?? 0) < (v[offset + k + 1] ?? 0)) ? (v[offset + k + 1] ?? 0) : (v[offset + k - 1] ?? 0) + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return backtrack(trace, offset, n, m, d);
    }
  }
  return null;
}

/** Walks the saved frontiers back from the end to the ops, first to last. */
function backtrack(trace: readonly Int32Array[], offset: number, n: number, m: number, dEnd: number): DiffOp[] {
  const ops: DiffOp[] = [];
  let x = n;
  let y = m;
  for (let d = dEnd; d > 0; d--) {
    const v = trace[d]!;
    const k = x - y;
    const down = k === -d || (k !== d && (v[offset + k - 1] ?? 0) < (v[offset + k + 1] ?? 0));
    const prevK = down ? k + 1 : k - 1;
    const prevX = v[offset + prevK] ?? 0;
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      ops.push(' ');
      x--;
      y--;
    }
    ops.push(down ? '+' : '-');
    if (down) y--;
    else x--;
  }
  while (x > 0 && y > 0) {
    ops.push(' ');
    x--;
    y--;
  }
  return ops.reverse();
}

/**
 * The unified diff turning `before` into `after`, as `diff -u` would print its hunks.
 * @example unifiedDiff('a\nb\n', 'a\nc\n').text // '@@ -1,2 +1,2 @@\n a\n-b\n+c\n'
 */
export function unifiedDiff(before: string, after: string): LineDiff {
  const a = linesOf(before);
  const b = linesOf(after);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const midA = a.slice(head, a.length - tail);
  const midB = b.slice(head, b.length - tail);
  const mid = myers(midA, midB) ?? [...midA.map((): DiffOp => '-'), ...midB.map((): DiffOp => '+')];
  const ops: DiffOp[] = [...Array<DiffOp>(head).fill(' '), ...mid, ...Array<DiffOp>(tail).fill(' ')];
  return hunks(ops, a, b);
}

/** Groups the ops into hunks with {@link CONTEXT_LINES} of context, numbered from 1. */
function hunks(ops: readonly DiffOp[], a: readonly string[], b: readonly string[]): LineDiff {
  // Where each op reads its line: the index into a (kept, removed) and into b (kept, added).
  const at: { op: DiffOp; ai: number; bi: number }[] = [];
  let ai = 0;
  let bi = 0;
  for (const op of ops) {
    at.push({ op, ai, bi });
    if (op !== '+') ai++;
    if (op !== '-') bi++;
  }
  const out: string[] = [];
  let added = 0;
  let removed = 0;
  let i = 0;
  while (i < at.length) {
    if (at[i]!.op === ' ') {
      i++;
      continue;
    }
    // A hunk: from CONTEXT_LINES before this change to CONTEXT_LINES after the last change
    // that follows within twice the context (closer changes share one hunk).
    const start = Math.max(0, i - CONTEXT_LINES);
    let end = i;
    for (let j = i; j < at.length && j <= end + 2 * CONTEXT_LINES; j++) if (at[j]!.op !== ' ') end = j;
    const stop = Math.min(at.length, end + 1 + CONTEXT_LINES);
    const lines: string[] = [];
    let aCount = 0;
    let bCount = 0;
    for (let j = start; j < stop; j++) {
      const { op, ai: x, bi: y } = at[j]!;
      lines.push(`${op}${op === '+' ? b[y] : a[x]}`);
      if (op !== '+') aCount++;
      if (op !== '-') bCount++;
      if (op === '+') added++;
      if (op === '-') removed++;
    }
    const first = at[start]!;
    const aStart = aCount === 0 ? first.ai : first.ai + 1;
    const bStart = bCount === 0 ? first.bi : first.bi + 1;
    out.push(`@@ -${aStart},${aCount} +${bStart},${bCount} @@`, ...lines);
    i = stop;
  }
  return { text: out.length === 0 ? '' : `${out.join('\n')}\n`, added, removed };
}
