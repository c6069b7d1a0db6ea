// What a notification says: the project, the agent, the tool and one line of what it wants,
// for one waiting call or a batch of them. Never more than a line per call, never a secret.
import { redactText } from '../redact-argv.js';
import { maskTokens } from './mask-tokens.js';

/** One waiting call, as a notification names it. */
export interface NotifyItem {
  /** The approval id. */
  id: string;
  session_id: string;
  agent: string;
  tool: string;
  /** The request's summary (already redacted by name); only its first line is sent. */
  summary: string;
  /** ISO 8601. */
  expires_at: string;
  /** A single-use page for this one call, when the server has a public URL. */
  link?: string;
}

/** A notification ready for any channel. */
export interface NotifyMessage {
  /** e.g. `Gatehouse: approval needed in shop-api`. */
  title: string;
  /** One line per call, at most {@link MAX_LINES}, and a count of the rest. */
  body: string;
  /** Where a tap should go: the one call's link, or the dashboard for a batch. */
  click: string | null;
  project: string;
  items: NotifyItem[];
}

/** Longest line per call: a phone's lock screen shows about this much. */
const MAX_LINE_CHARS = 140;
/** Calls listed in one message; the rest are counted, so a burst is one readable message. */
const MAX_LINES = 5;

/**
 * The first line of `text` as it may leave the machine: every secret Gatehouse can recognise
 * masked (named values, headers and URL credentials as in logs, then token shapes), white space
 * folded, and cut to `max` code points with a mark (never inside a surrogate pair).
 */
export function oneLine(text: string, max: number = MAX_LINE_CHARS): string {
  const first = maskTokens(redactText(text)).split(/\r?\n/, 1)[0] ?? '';
  const more = text.includes('\n');
  const points = [...first.replace(/\s+/g, ' ').trim()];
  if (points.length > max) return `${points.slice(0, max - 1).join('')}…`;
  return more ? `${points.join('')} …` : points.join('');
}

/**
 * The message for `items` (one or a batch) waiting in `project`. `dashboard` is where a tap
 * on a batch goes (null when the server has no public URL).
 * @example notifyMessage('shop-api', [item], null).title // 'Gatehouse: approval needed in shop-api'
 */
export function notifyMessage(project: string, items: readonly NotifyItem[], dashboard: string | null): NotifyMessage {
  if (items.length === 0) throw new Error('notifyMessage needs at least one waiting call');
  const title = items.length === 1 ? `Gatehouse: approval needed in ${project}` : `Gatehouse: ${items.length} approvals needed in ${project}`;
  const lines = items.slice(0, MAX_LINES).map((i) => `${i.agent} · ${i.tool}: ${oneLine(i.summary)}`);
  if (items.length > MAX_LINES) lines.push(`… and ${items.length - MAX_LINES} more`);
  const only = items.length === 1 ? items[0] : undefined;
  return { title, body: lines.join('\n'), click: only?.link ?? dashboard, project, items: [...items] };
}
