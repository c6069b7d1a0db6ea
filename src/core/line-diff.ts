// A unified diff of two texts, line by line, for a person to read: what a write or an edit on
// an approval card changes, and what a session changed. Myers' O(ND) algorithm after trimming
// the common ends, bounded in the edits it searches for.

/** Lines of unchanged context around each change, as `diff -u` shows. */
const CONTEXT_LINES = 3;

/** What git and `diff` print after a last line that has no newline. */
const NO_NEWLINE = '\\ No newline at end of file';

/**
 * Most changed lines an approval card's diff searches for. Past it the middle is shown removed
 * whole and added whole: still a true diff, only not the shortest, and the search stays within
 * a few milliseconds on the largest file a card reads.
 */
const CARD_MAX_EDITS = 2_000;

type Op = { op: ' ' | '-' | '+'; line: string };

/** A unified diff with its counts. */
export interface LineDiff {
  /** `@@ -a,b +c,d @@` hunks, each line prefixed by its op, ending in a newline; empty when the texts are equal. */
  text: string;
  added: number;
  removed: number;
}

/** The lines of `text`, each with its own `\n` (the last may lack one). */
function linesOf(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n').map((l) => `${l}\n`);
  const last = lines.pop() ?? '';
  if (last !== '\n') lines.push(last.slice(0, -1));
  return lines;
}

/** The shortest edit script from `a` to `b` (Myers), or null when it needs more than `maxEdits` inserted or deleted lines. */
function myers(a: readonly string[], b: readonly string[], maxEdits: number): Op[] | null {
  const n = a.length;
  const m = b.length;
  // A created or deleted file: every line added or removed, at no cost.
  if (n === 0 || m === 0) return [...a.map((line): Op => ({ op: '-', line })), ...b.map((line): Op => ({ op: '+', line }))];
  const max = Math.min(n + m, maxEdits);
  const off = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[off + k - 1]! < v[off + k + 1]!) ? v[off + k + 1]! : v[off + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[off + k] = x;
      if (x >= n && y >= m) return backtrack(a, b, trace, off);
    }
  }
  return null;
}

/** Walks the recorded frontiers back from the end: each step is one insert or delete after a run of equal lines. */
function backtrack(a: readonly string[], b: readonly string[], trace: readonly Int32Array[], off: number): Op[] {
  const ops: Op[] = [];
  let x = a.length;
  let y = b.length;
  for (let d = trace.length - 1; d >= 0; d--) {
    const v = trace[d]!;
    const k = x - y;
    const prevK = k === -d || (k !== d && v[off + k - 1]! < v[off + k + 1]!) ? k + 1 : k - 1;
    const prevX = v[off + prevK]!;
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      ops.push({ op: ' ', line: a[x - 1]! });
      x--;
      y--;
    }
    if (d === 0) break;
    if (x === prevX) ops.push({ op: '+', line: b[y - 1]! });
    else ops.push({ op: '-', line: a[x - 1]! });
    x = prevX;
    y = prevY;
  }
  return ops.reverse();
}

/** The edit script with the common first and last lines kept aside, so a small edit to a big file costs little. */
function editScript(a: readonly string[], b: readonly string[], maxEdits: number): Op[] | null {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const mid = myers(a.slice(head, a.length - tail), b.slice(head, b.length - tail), maxEdits);
  if (mid === null) return null;
  const kept = (line: string): Op => ({ op: ' ', line });
  return [...a.slice(0, head).map(kept), ...mid, ...a.slice(a.length - tail).map(kept)];
}

/** One line of the diff body: its mark and text, and git's marker when it has no newline. */
function bodyLine(o: Op): string {
  return o.line.endsWith('\n') ? `${o.op}${o.line.slice(0, -1)}` : `${o.op}${o.line}\n${NO_NEWLINE}`;
}

/** `@@ -a,b +c,d @@` for a hunk whose first line follows `oldBefore` and `newBefore` lines. */
function hunkHeader(oldBefore: number, oldCount: number, newBefore: number, newCount: number): string {
  const range = (before: number, count: number): string => `${count === 0 ? before : before + 1},${count}`;
  return `@@ -${range(oldBefore, oldCount)} +${range(newBefore, newCount)} @@`;
}

/** The ops as hunks with {@link CONTEXT_LINES} of context (no trailing newline), with the changed-line counts. */
function hunks(ops: readonly Op[]): LineDiff {
  const changed = ops.flatMap((o, i) => (o.op === ' ' ? [] : [i]));
  const out: string[] = [];
  let oldSeen = 0;
  let newSeen = 0;
  let at = 0;
  for (let c = 0; c < changed.length;) {
    // A hunk runs while the next change is close enough that their contexts would meet.
    let last = c;
    while (last + 1 < changed.length && changed[last + 1]! - changed[last]! <= 2 * CONTEXT_LINES + 1) last++;
    const start = Math.max(0, changed[c]! - CONTEXT_LINES);
    const end = Math.min(ops.length, changed[last]! + CONTEXT_LINES + 1);
    for (; at < start; at++) {
      oldSeen++;
      newSeen++;
    }
    const hunk = ops.slice(start, end);
    const oldCount = hunk.filter((o) => o.op !== '+').length;
    const newCount = hunk.filter((o) => o.op !== '-').length;
    out.push(hunkHeader(oldSeen, oldCount, newSeen, newCount), ...hunk.map(bodyLine));
    oldSeen += oldCount;
    newSeen += newCount;
    at = end;
    c = last + 1;
  }
  const count = (op: Op['op']): number => ops.filter((o) => o.op === op).length;
  return { text: out.join('\n'), added: count('+'), removed: count('-') };
}

/**
 * The hunks of a unified diff from `oldText` to `newText` (no file header lines, no trailing
 * newline), `''` when they are equal; null when they differ in more than `maxEdits` lines.
 * @example unifiedHunks('a\nb\n', 'a\nc\n', 100) // '@@ -1,2 +1,2 @@\n a\n-b\n+c'
 */
export function unifiedHunks(oldText: string, newText: string, maxEdits: number): string | null {
  const ops = editScript(linesOf(oldText), linesOf(newText), maxEdits);
  return ops === null ? null : hunks(ops).text;
}

/**
 * The diff an approval card shows, always: past {@link CARD_MAX_EDITS} changed lines the
 * middle is shown removed whole and added whole.
 * @example unifiedDiff('a\nb\n', 'a\nc\n').text // '@@ -1,2 +1,2 @@\n a\n-b\n+c\n'
 */
export function unifiedDiff(before: string, after: string): LineDiff {
  const a = linesOf(before);
  const b = linesOf(after);
  const ops = editScript(a, b, CARD_MAX_EDITS) ?? [...a.map((line): Op => ({ op: '-', line })), ...b.map((line): Op => ({ op: '+', line }))];
  const d = hunks(ops);
  return { ...d, text: d.text === '' ? '' : `${d.text}\n` };
}
