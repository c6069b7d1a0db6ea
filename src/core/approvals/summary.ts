// What the person asked to approve a tool call is shown: the whole call, redacted (never
// file contents; secret-looking values masked) and safe to display, but never cut short.

/**
 * Longest summary a person is asked to review, in UTF-16 units. A longer call is refused
 * instead of shown cut. The bound keeps one pending request inside one WebSocket frame
 * (64 KiB): a summary holds at most 3 UTF-8 bytes per unit once unsafe characters and lone
 * surrogates are replaced, so 16,000 units stay under 48 KB plus the record's other fields.
 */
export const MAX_REVIEW_CHARS = 16_000;

/** Characters of a summary quoted back to the agent in a reason: it wrote the call, a line reminds it which. */
export const REASON_SUMMARY_CHARS = 200;

/** Line breaks show as a visible mark, so a multi-line command cannot hide its second line. */
const NEWLINE = /\r\n|\r|\n/g;

/**
 * Controls, bidi overrides and lone surrogates are replaced: a summary is shown to the
 * person who approves, and escapes or reordered text must not make one command look like
 * another (a lone surrogate also has no display, and JSON escapes it to six bytes).
 */
// eslint-disable-next-line no-control-regex
const UNSAFE_CHARS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]/gu;

/** Secret-looking values in a command line (`TOKEN=…`, `--password …`, `Authorization: Bearer …`). */
const SECRET_PATTERNS: readonly [RegExp, string][] = [
  [/\b([A-Za-z0-9_]*(?:TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|PRIVATE_KEY)[A-Za-z0-9_]*=)("[^"]*"|'[^']*'|\S+)/giu, '$1***'],
  [/(--?(?:password|passwd|token|secret|api-key)(?:=|\s+))("[^"]*"|'[^']*'|\S+)/giu, '$1***'],
  [/(authorization:\s*(?:bearer|basic|token)\s+)([^\s'"]+)/giu, '$1***'],
];

/**
 * Agent-supplied text made safe to show whole: line breaks become ` ↵ `, controls,
 * bidi marks and lone surrogates become U+FFFD. Nothing is dropped or cut.
 * @example safeForDisplay('ls\nrm -rf ~') // 'ls ↵ rm -rf ~'
 */
export function safeForDisplay(text: string): string {
  return text.replace(NEWLINE, ' ↵ ').replace(UNSAFE_CHARS, '\uFFFD');
}

/**
 * The whole, redacted summary of a call's input for the pending record and the person asked:
 * never file contents. Write → path, lines and bytes; Edit/MultiEdit/NotebookEdit → path and
 * the sizes of what is replaced; Bash → the whole command with secret-looking values masked;
 * anything else → its keys only. A number and its unit are joined by a no-break space, so a
 * view that wraps at spaces never leaves a number at the end of one line and its unit on the next.
 * @example summarizeInput('Write', { file_path: 'a.ts', content: 'secret' }) // 'Write a.ts: 1 line (6 bytes)'
 */
export function summarizeInput(tool: string, input: unknown): string {
  const rec = typeof input === 'object' && input !== null && !Array.isArray(input) ? (input as Record<string, unknown>) : null;
  let text: string;
  if (rec === null) {
    text = `${tool} (${input === null || input === undefined ? 'no' : Array.isArray(input) ? 'list' : typeof input} input)`;
  } else if (tool === 'Write') {
    text = `Write ${pathOf(rec.file_path)}: ${size(rec.content)}`;
  } else if (tool === 'Edit') {
    const all = rec.replace_all === true ? ', every occurrence' : '';
    text = `Edit ${pathOf(rec.file_path)}: replace ${size(rec.old_string)} with ${size(rec.new_string)}${all}`;
  } else if (tool === 'MultiEdit') {
    const edits = (Array.isArray(rec.edits) ? rec.edits : []).map((e) => (typeof e === 'object' && e !== null ? (e as Record<string, unknown>) : {}));
    const joined = (key: string): string[] => edits.map((e) => (typeof e[key] === 'string' ? e[key] : ''));
    text = `MultiEdit ${pathOf(rec.file_path)}: ${count(edits.length, 'edit')}, replacing ${size(joined('old_string'))} with ${size(joined('new_string'))} in all`;
  } else if (tool === 'NotebookEdit') {
    const mode = typeof rec.edit_mode === 'string' ? rec.edit_mode : 'replace';
    text = mode === 'delete' ? `NotebookEdit ${pathOf(rec.notebook_path)}: delete a cell` : `NotebookEdit ${pathOf(rec.notebook_path)}: ${mode} a cell of ${size(rec.new_source)}`;
  } else if (tool === 'Bash' && typeof rec.command === 'string') {
    text = `Bash: ${SECRET_PATTERNS.reduce((s, [re, to]) => s.replace(re, to), rec.command)}`;
  } else {
    const keys = Object.keys(rec).sort();
    text = keys.length === 0 ? `${tool} (no arguments)` : `${tool} {${keys.join(', ')}}`;
  }
  return safeForDisplay(text);
}

/**
 * A summary cut to `max` characters (by code point) with a `…` mark: for reasons given to the
 * agent only, never for what a person reviews.
 */
export function shortSummary(summary: string, max: number = REASON_SUMMARY_CHARS): string {
  const chars = Array.from(summary);
  if (chars.length <= max) return summary;
  return `${chars.slice(0, Math.max(0, max - 1)).join('')}…`;
}

function pathOf(v: unknown): string {
  return typeof v === 'string' && v !== '' ? v : '(no path)';
}

const ENCODER = new TextEncoder();

/** Joins a number to its unit: a view that wraps at spaces keeps `120 bytes` on one line. */
const NO_BREAK_SPACE = '\u00a0';

function bytes(v: unknown): number {
  return typeof v === 'string' ? ENCODER.encode(v).length : 0;
}

/** Lines of a text: a final line break ends the last line rather than starting another. */
function lineCount(v: unknown): number {
  if (typeof v !== 'string' || v === '') return 0;
  let n = 1;
  for (let i = v.indexOf('\n'); i !== -1; i = v.indexOf('\n', i + 1)) n++;
  return v.endsWith('\n') ? n - 1 : n;
}

/** `3 lines`, `1 edit`: the count and its unit kept together. */
function count(n: number, unit: string): string {
  return `${n}${NO_BREAK_SPACE}${unit}${n === 1 ? '' : 's'}`;
}

/** The size of a text, or of several texts together, as a person reads it: `3 lines (120 bytes)`. */
function size(v: unknown): string {
  const parts = Array.isArray(v) ? v : [v];
  const lines = parts.reduce<number>((n, p) => n + lineCount(p), 0);
  const total = parts.reduce<number>((n, p) => n + bytes(p), 0);
  return `${count(lines, 'line')} (${count(total, 'byte')})`;
}
