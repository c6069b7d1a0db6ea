// What an approval card shows beyond the one-line summary: for a write or an edit, the diff
// against the file as it is now; for a shell call, the command, the agent's description, the
// folder and why a person is asked; for anything else, the input as formatted JSON. Built
// when the call is filed, masked and made safe to display, and capped in size.
import { safeForDisplay } from '../display.js';
import { unifiedDiff } from '../line-diff.js';
import { maskTokens } from '../notify/mask-tokens.js';
import type { CallView } from '../tool-view.js';
import { maskSecrets, SECRET_KEY } from './summary.js';

/** One file's change: a unified diff (lines prefixed ` `, `-`, `+`, hunks by `@@`). */
interface DiffFile {
  path: string;
  diff: string;
  added: number;
  removed: number;
  /** What a person must know beyond the lines: a new file, an edit that would fail, a file not read. */
  note: string | null;
}

/** The detail of one call, as the pending record keeps it. */
export type ApprovalDetail =
  | { kind: 'diff'; files: DiffFile[]; truncated: boolean }
  | { kind: 'shell'; command: string; description: string | null; cwd: string; why: string; rule: string }
  | { kind: 'input'; json: string; truncated: boolean };

/** The file a write or an edit changes, as the gate read it just before filing the call. */
export type CurrentFile = { kind: 'text'; text: string } | { kind: 'missing' } | { kind: 'unreadable'; why: string };

/** What {@link callDetail} needs besides the call's view. */
export interface DetailFacts {
  tool: string;
  input: unknown;
  view: CallView;
  /** The file a write or edit changes (null for other calls). */
  current: CurrentFile | null;
  cwd: string;
  /** Why a person is asked, as the request's `why` says. */
  why: string;
  /** The step of the decision order that asked. */
  rule: string;
}

/**
 * Largest detail stored, in UTF-8 bytes of its text: the card shows a diff a person can read,
 * and one pending record (with its summary) still fits one WebSocket frame when fetched alone.
 */
export const MAX_DETAIL_BYTES = 40 * 1024;

const ENCODER = new TextEncoder();
const byteLength = (s: string): number => ENCODER.encode(s).length;

/** Text a person reads: credential shapes and secret-looking values masked, each line made safe. */
function shown(text: string): string {
  return maskTokens(text)
    .split('\n')
    .map((line) => safeForDisplay(line))
    .join('\n');
}

/** Cuts `text` at a line end so that at most `budget` UTF-8 bytes remain; whether it cut. */
function cutLines(text: string, budget: number): { text: string; cut: boolean } {
  if (byteLength(text) <= budget) return { text, cut: false };
  const lines = text.split('\n');
  let used = 0;
  let kept = 0;
  for (const line of lines) {
    used += byteLength(line) + 1;
    if (used > budget) break;
    kept++;
  }
  return { text: lines.slice(0, kept).join('\n') + (kept > 0 ? '\n' : ''), cut: true };
}

/** `text` with one change applied, or null when its old text is not there (the edit would fail). */
function applyChange(text: string, change: { old: string; new: string }, all: boolean): string | null {
  if (change.old === '') return text === '' ? change.new : null;
  const at = text.indexOf(change.old);
  if (at < 0) return null;
  if (all) return text.split(change.old).join(change.new);
  return text.slice(0, at) + change.new + text.slice(at + change.old.length);
}

/** One file's entry from its diff. */
function asFile(path: string, before: string, after: string, note: string | null): DiffFile {
  const d = unifiedDiff(shown(before), shown(after));
  return { path, diff: d.text, added: d.added, removed: d.removed, note };
}

/** The diff of a write or an edit against the file as it is now. */
function fileDiff(path: string, view: Extract<CallView, { kind: 'write' | 'edit' }>, current: CurrentFile): DiffFile {
  const before = current.kind === 'text' ? current.text : '';
  const fileNote = current.kind === 'missing' ? 'a new file' : current.kind === 'unreadable' ? `the file as it is now is not shown (${current.why}); the diff is against an empty file` : null;
  if (view.kind === 'write') return asFile(path, before, view.content, fileNote);
  let after: string | null = before;
  for (const change of view.changes) {
    after = after === null ? null : applyChange(after, change, view.all);
  }
  if (after === null || current.kind === 'unreadable') {
    // The edit cannot be placed in the file: show what it replaces with what, on their own.
    // Snippets, not files: each ends its last line, so no "no newline" mark is shown for them.
    const snippet = (texts: string[]): string => texts.map((t) => (t === '' || t.endsWith('\n') ? t : `${t}\n`)).join('');
    const olds = snippet(view.changes.map((c) => c.old));
    const news = snippet(view.changes.map((c) => c.new));
    const why = current.kind === 'unreadable' ? fileNote : 'the text to replace is not in the file as it is now, so the edit would fail as sent';
    return asFile(path, olds, news, why);
  }
  return asFile(path, before, after, fileNote);
}

/** The input as formatted JSON, secret-named arguments masked. */
function inputJson(input: unknown): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(input, (key, value: unknown) => (key !== '' && SECRET_KEY.test(key) && value !== '' ? '***' : value), 2);
  } catch {
    json = undefined;
  }
  return shown(json ?? '(an input that cannot be shown as JSON)');
}

/**
 * The detail of a call a person is asked about.
 * @example callDetail({ tool: 'Write', input, view: { kind: 'write', path: 'a.ts', content: 'x\n' }, current: { kind: 'missing' }, cwd: '/w', why, rule }).kind // 'diff'
 */
export function callDetail(f: DetailFacts): ApprovalDetail {
  const { view } = f;
  if (view.kind === 'shell') {
    const description = f.input !== null && typeof f.input === 'object' ? (f.input as { description?: unknown }).description : undefined;
    return {
      kind: 'shell',
      command: shown(maskSecrets(view.command)),
      description: typeof description === 'string' && description.trim() !== '' ? shown(description) : null,
      cwd: safeForDisplay(f.cwd),
      why: f.why,
      rule: f.rule,
    };
  }
  if ((view.kind === 'write' || (view.kind === 'edit' && !view.cell)) && f.current !== null) {
    const file = fileDiff(safeForDisplay(view.path ?? '(no path)'), view, f.current);
    const cut = cutLines(file.diff, MAX_DETAIL_BYTES);
    return { kind: 'diff', files: [{ ...file, diff: cut.text }], truncated: cut.cut };
  }
  if (view.kind === 'patch') {
    // A patch is already a diff; its text is the input's one long string.
    const text = f.input !== null && typeof f.input === 'object' ? Object.values(f.input).find((v): v is string => typeof v === 'string' && v.includes('\n')) : undefined;
    if (text !== undefined) {
      const cut = cutLines(shown(text), MAX_DETAIL_BYTES);
      const lines = text.split('\n');
      const count = (p: string): number => lines.filter((l) => l.startsWith(p) && !l.startsWith(`${p}${p}${p}`)).length;
      return { kind: 'diff', files: [{ path: '(patch)', diff: cut.text, added: count('+'), removed: count('-'), note: null }], truncated: cut.cut };
    }
  }
  const cut = cutLines(inputJson(f.input), MAX_DETAIL_BYTES);
  return { kind: 'input', json: cut.text, truncated: cut.cut };
}
