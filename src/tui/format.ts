// Pure text helpers of the approvals panel: make agent-supplied text safe to print
// in a terminal, and say how long an approval has left in a few characters.
import { safeForDisplay } from '../core/display.js';

/**
 * Untrusted text (a tool, session or agent name) as one short label: made safe by the one
 * display sanitiser (controls and invisible characters as visible escapes, lookalikes
 * flagged), then runs of whitespace as one space.
 * @example displayText('rm -rf\n\u001B[2Jbuild') // 'rm -rf ↵ <U+001B>[2Jbuild'
 */
export function displayText(text: string): string {
  return safeForDisplay(text).replace(/\s+/g, ' ').trim();
}

/**
 * Time left before an approval expires, in the two largest units.
 * @example formatTimeLeft(272_000) // '4m 32s'
 */
export function formatTimeLeft(ms: number): string {
  if (!Number.isFinite(ms)) return '?';
  const total = Math.ceil(ms / 1000);
  if (total <= 0) return 'expired';
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  if (hours > 0) return `${hours}h ${String(minutes).padStart(2, '0')}m`;
  if (minutes > 0) return `${minutes}m ${String(seconds).padStart(2, '0')}s`;
  return `${seconds}s`;
}

/** C0 controls, DEL and C1 controls: what a key press may carry besides text. */
// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001F\u007F-\u009F]+/g;

/** Removes control characters but keeps spaces: for text the user is typing. */
export function stripControl(text: string): string {
  return text.replace(CONTROL_CHARS, '');
}

/** The first code point that terminals draw two columns wide (Hangul Jamo; CJK and emoji lie above). */
const FIRST_WIDE = 0x1100;

/**
 * Columns `ch` may take: 2 from U+1100 up, else 1. Over-counting (combining marks, narrow
 * symbols up there) only makes a line shorter than the terminal, never longer, so a wrapped
 * line is never wrapped again by the terminal and the panel's height stays what it counted.
 */
function columnsOf(ch: string): number {
  return (ch.codePointAt(0) ?? 0) >= FIRST_WIDE ? 2 : 1;
}

/**
 * A number joined to its unit by a no-break space (`120\u00a0bytes`): summaries write sizes
 * so, and a wrapped line must not end between the digits and the unit.
 */
const KEEP_TOGETHER = /\d+\u00a0\p{L}+/u;

/** For each code point of `chars`, the index where its keep-together run starts when it is inside one (not first), else -1. */
function keepTogetherStarts(chars: readonly string[], max: number): number[] {
  const starts = chars.map(() => -1);
  const text = chars.join('');
  // Code point index of each UTF-16 offset that starts a code point.
  const cp = new Map<number, number>();
  for (let i = 0, off = 0; i < chars.length; off += chars[i]!.length, i++) cp.set(off, i);
  const re = new RegExp(KEEP_TOGETHER.source, 'gu');
  for (const m of text.matchAll(re)) {
    const first = cp.get(m.index);
    if (first === undefined) continue;
    const run = Array.from(m[0]);
    // A run wider than a line is cut anyway; keeping it whole would loop.
    if (run.reduce((n, c) => n + columnsOf(c), 0) > max) continue;
    for (let k = 1; k < run.length; k++) starts[first + k] = first;
  }
  return starts;
}

/**
 * Splits `text` into lines of at most `width` columns, by code point, keeping every
 * character: joined again, the lines are `text`. A number and its unit joined by a no-break
 * space move to the next line together rather than being split.
 * @example wrapColumns('abcdef', 4) // ['abcd', 'ef']
 */
export function wrapColumns(text: string, width: number): string[] {
  const max = Math.max(2, Math.floor(width));
  const chars = Array.from(text);
  const runStart = text.includes('\u00a0') ? keepTogetherStarts(chars, max) : null;
  const lines: string[] = [];
  let lineStart = 0;
  let used = 0;
  for (let i = 0; i < chars.length; i++) {
    const w = columnsOf(chars[i]!);
    if (used + w > max) {
      const from = runStart?.[i] ?? -1;
      const cut = from > lineStart ? from : i;
      lines.push(chars.slice(lineStart, cut).join(''));
      used = chars.slice(cut, i).reduce((n, c) => n + columnsOf(c), 0);
      lineStart = cut;
    }
    used += w;
  }
  if (lineStart < chars.length || lines.length === 0) lines.push(chars.slice(lineStart).join(''));
  return lines;
}

/** Columns `text` may take on one line, by the same count as {@link wrapColumns}. */
export function textColumns(text: string): number {
  let n = 0;
  for (const ch of text) n += columnsOf(ch);
  return n;
}
