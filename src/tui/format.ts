// Pure text helpers of the approvals panel: make agent-supplied text safe to print
// in a terminal, and say how long an approval has left in a few characters.

/**
 * C0 controls, DEL and C1 controls. Tool names and summaries come from the agent, so an
 * escape sequence in them could move the cursor or recolour the panel (or worse).
 */
// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001F\u007F-\u009F]+/g;

/**
 * Turns untrusted text into one printable line: control characters and runs of
 * whitespace become a single space.
 * @example displayText('rm -rf\n\u001B[2Jbuild') // 'rm -rf [2Jbuild'
 */
export function displayText(text: string): string {
  return text.replace(CONTROL_CHARS, ' ').replace(/\s+/g, ' ').trim();
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
 * Splits `text` into lines of at most `width` columns, by code point, keeping every
 * character: joined again, the lines are `text`.
 * @example wrapColumns('abcdef', 4) // ['abcd', 'ef']
 */
export function wrapColumns(text: string, width: number): string[] {
  const max = Math.max(2, Math.floor(width));
  const lines: string[] = [];
  let line = '';
  let used = 0;
  for (const ch of text) {
    const w = columnsOf(ch);
    if (used + w > max) {
      lines.push(line);
      line = '';
      used = 0;
    }
    line += ch;
    used += w;
  }
  if (line !== '' || lines.length === 0) lines.push(line);
  return lines;
}

/** Columns `text` may take on one line, by the same count as {@link wrapColumns}. */
export function textColumns(text: string): number {
  let n = 0;
  for (const ch of text) n += columnsOf(ch);
  return n;
}
