// Audit events as text for the terminal: a header line, then the event's fields and its reason
// wrapped at word boundaries. Every value is agent-reachable text, so it is made safe to print.
import { safeForDisplay } from '../core/display.js';
import { clipWords } from '../core/word-wrap.js';
import type { AuditEvent } from '../runtime/audit/index.js';

/** Width when stdout is not a terminal (a pipe, a file): what most terminals show and logs keep readable. */
const DEFAULT_COLUMNS = 100;
/** Narrowest width wrapped to: below it the indent would leave too little room for words. */
const MIN_COLUMNS = 40;
/** Lines of fields and of reason shown per event: enough for a refusal's gist; `--json` has it whole. */
const MAX_DETAIL_LINES = 4;
/** Continuation lines start under the event type, so the sequence numbers stay a clean column. */
const INDENT = '       ';
/** Digests and key ids: 64 hex digits, noise in a terminal and printed whole by `--json`. */
const HEX64 = /^[0-9a-f]{64}$/;

/** The width to wrap to: the terminal's, else `COLUMNS`, else {@link DEFAULT_COLUMNS}. */
export function outputColumns(stream: { columns?: number }, env: NodeJS.ProcessEnv): number {
  const fromEnv = Number(env.COLUMNS);
  const columns = stream.columns ?? (Number.isSafeInteger(fromEnv) && fromEnv > 0 ? fromEnv : DEFAULT_COLUMNS);
  return Math.max(MIN_COLUMNS, columns);
}

/** One field's value as display text, or null when there is nothing worth a column. */
function fieldText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return HEX64.test(value) ? null : value;
  if (Array.isArray(value)) {
    // Verifier summaries ({name, outcome}) read best as `name:outcome`.
    const parts = value.map((v) => (typeof v === 'object' && v !== null && 'name' in v && 'outcome' in v ? `${String(v.name)}:${String(v.outcome)}` : typeof v === 'string' ? v : JSON.stringify(v)));
    return parts.length === 0 ? '(none)' : parts.join(', ');
  }
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** `key=value` for each field but the reason, in the order the event stores them. */
function fieldsLine(data: unknown): string {
  if (typeof data !== 'object' || data === null) return '';
  const out: string[] = [];
  for (const [key, value] of Object.entries(data)) {
    if (key === 'reason') continue;
    const text = fieldText(value);
    if (text !== null) out.push(`${key}=${text}`);
  }
  return out.join(' ');
}

/**
 * `text` made safe, wrapped at word boundaries to fit `columns` after `indent`, at most
 * {@link MAX_DETAIL_LINES} lines (the last ending in ` …` when some was left out).
 * @example wrapBlock('a long reason', '    ', 80) // ['    a long reason']
 */
export function wrapBlock(text: string, indent: string, columns: number): string[] {
  if (text === '') return [];
  return clipWords(safeForDisplay(text), columns - indent.length, MAX_DETAIL_LINES).lines.map((l) => `${indent}${l}`);
}

function block(text: string, columns: number): string[] {
  return wrapBlock(text, INDENT, columns);
}

/**
 * An event as text: `seq time type actor session`, then its fields, then its reason; no line
 * longer than `columns` (bar a header with overlong ids) and no word cut.
 * @example formatEvent(event, 100).join('\n')
 */
export function formatEvent(e: AuditEvent, columns: number): string[] {
  // The log file is writable by the agent too: even the header fields may hold anything.
  const header = `${safeForDisplay(String(e.seq)).padStart(6)} ${safeForDisplay(String(e.time))} ${safeForDisplay(e.type).padEnd(24)} ${safeForDisplay(e.actor).padEnd(24)} ${safeForDisplay(e.session_id ?? '-')}`;
  const data = e.data as Record<string, unknown> | null;
  const reason = data !== null && typeof data === 'object' && typeof data.reason === 'string' ? data.reason : '';
  return [header.trimEnd(), ...block(fieldsLine(data), columns), ...block(reason === '' ? '' : `reason: ${reason}`, columns)];
}

/** What `audit tail` says when the log holds no event yet: where it looked, and what writes events. */
export function noEventsMessage(auditDir: string): string {
  return [
    `No audit events yet in ${auditDir}.`,
    'Events are written by gated sessions (`gatehouse run`, `gatehouse session start`): each start and end,',
    'refused write, stop verdict and end-of-session check, and each approval decision. If you expected some,',
    'check --worktree or --state-dir (`gatehouse where` prints the state folder).',
  ].join('\n');
}
