// What the person asked to approve a tool call is shown: the whole call, redacted (never
// file contents; secret-looking values masked) and safe to display, but never cut short.
import type { CallView } from '../tool-view.js';
import { safeForDisplay } from '../display.js';

/**
 * Longest summary a person is asked to review, in UTF-16 units. A longer call is refused
 * instead of shown cut. The bound keeps one pending request inside one WebSocket frame
 * (64 KiB): a summary holds at most 3 UTF-8 bytes per unit once unsafe characters and lone
 * surrogates are replaced, so 16,000 units stay under 48 KB plus the record's other fields.
 */
export const MAX_REVIEW_CHARS = 16_000;

/** Characters of a summary quoted back to the agent in a reason: it wrote the call, a line reminds it which. */
export const REASON_SUMMARY_CHARS = 200;

/**
 * A literal value as one shell word: quoted, or bare up to a shell metacharacter, and then the
 * end of the word. A value run on into `;`, `&&`, `|` or `<` is not masked at all: masking
 * `--token=a||sh<p` as `--token=***` would hide the command that runs.
 */
const WORD_VALUE = `("[^"]*"|'[^']*'|[^\\s;&|<>()'"]+)(?=\\s|$)`;

/** Secret-looking values in a command line (`TOKEN=…`, `--password …`, `Authorization: Bearer …`). */
const SECRET_PATTERNS: readonly RegExp[] = [
  new RegExp(`\\b([A-Za-z0-9_]*(?:TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|PRIVATE_KEY)[A-Za-z0-9_]*=)${WORD_VALUE}`, 'giu'),
  new RegExp(`(--?(?:password|passwd|token|secret|api-key)(?:=|\\s+))${WORD_VALUE}`, 'giu'),
  // Inside a quoted header: the credential runs to the closing quote or the end of the line.
  /(authorization:\s*(?:bearer|basic|token)\s+)([^\s'";&|<>()]+)(?=['"\s]|$)/giu,
];

/**
 * Text that runs something when the shell expands it: `$(…)`, backticks, `$VAR`, `<(…)`. A
 * value with any of it is code, not a secret, and is always shown: masking
 * `TOKEN="$(rm -rf ~)"` would hide the very command being approved.
 */
const EXPANDS = /[$`]|[<>]\(/;

/** A command line with its secret-looking literal values masked; anything that expands stays visible. */
export function maskSecrets(command: string): string {
  return SECRET_PATTERNS.reduce((s, re) => s.replace(re, (whole: string, lead: string, value: string) => (EXPANDS.test(value) ? whole : `${lead}***`)), command);
}

/** Argument names whose values are secrets in any tool (an MCP server's `api_key`, a `token`). */
export const SECRET_KEY = /token|secret|passw|api_?key|private_?key|authorization|cookie|credential/i;

/**
 * The whole, redacted summary of a call for the pending record and the person asked, by the
 * kind of tool its adapter declared (never file contents):
 * - shell: the whole command, secret-looking literal values masked;
 * - write: the path, lines and bytes; edit: the path and the sizes of what is replaced;
 * - patch: every file it adds, updates, deletes or moves;
 * - read, fetch and anything else: the path or URL first, then every argument with its value
 *   (JSON, so quotes show where a value ends), secret-named ones masked.
 * A number and its unit are joined by a no-break space, so a view that wraps at spaces never
 * leaves a number at the end of one line and its unit on the next.
 * @example summarizeCall('Write', { kind: 'write', path: 'a.ts', content: 'secret' }) // 'Write a.ts: 1 line (6 bytes)'
 */
export function summarizeCall(tool: string, view: CallView): string {
  return safeForDisplay(describeCall(tool, view));
}

function describeCall(tool: string, view: CallView): string {
  switch (view.kind) {
    case 'shell':
      return `${tool}: ${maskSecrets(view.command)}`;
    case 'write':
      return `${tool} ${pathOf(view.path)}: ${size(view.content)}`;
    case 'edit': {
      if (view.cell)
        return view.mode === 'delete' ? `${tool} ${pathOf(view.path)}: delete a cell` : `${tool} ${pathOf(view.path)}: ${view.mode ?? 'replace'} a cell of ${size(view.changes[0]?.new ?? '')}`;
      const olds = view.changes.map((c) => c.old);
      const news = view.changes.map((c) => c.new);
      if (view.list) return `${tool} ${pathOf(view.path)}: ${count(view.changes.length, 'edit')}, replacing ${size(olds)} with ${size(news)} in all`;
      return `${tool} ${pathOf(view.path)}: replace ${size(olds)} with ${size(news)}${view.all ? ', every occurrence' : ''}`;
    }
    case 'patch':
      return view.ops.length === 0
        ? `${tool}: a patch that touches no file`
        : `${tool}: ${view.ops.map((o) => (o.to !== undefined ? `update ${o.path} and move it to ${o.to}` : `${o.op} ${o.path}`)).join(', ')}`;
    default: {
      const keys = Object.keys(view.args).sort();
      const lead = view.lead !== null ? ` ${view.args[view.lead] as string}` : '';
      const rest = keys.filter((k) => k !== view.lead).map((k) => `${k}: ${SECRET_KEY.test(k) && view.args[k] !== '' ? '***' : valueText(view.args[k])}`);
      if (rest.length === 0) return lead === '' ? `${tool} (no arguments)` : `${tool}${lead}`;
      return `${tool}${lead} {${rest.join(', ')}}`;
    }
  }
}

/** An argument's value as JSON (strings quoted, so where one ends is plain); what JSON cannot hold, named. */
function valueText(v: unknown): string {
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return '(a value that cannot be shown)';
  }
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
