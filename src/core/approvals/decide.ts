// The decision order for one tool call: profile, classifier deny-list, classifier approve,
// always-allow, then ask a person (interactive) or allow (headless). First that settles wins.
import type { ToolKind } from '../event.js';
import { matchesAlwaysAllow, type CompiledAlwaysAllow } from './always-allow.js';
import { checkProfile, type CompiledProfile } from './profiles.js';
import type { ShellAnalysis } from '../shell/index.js';

/** The `approvals` config section. */
export interface ApprovalSettings {
  interactive: boolean;
  timeout_seconds: number;
  smart_auto_approve: boolean;
}

/**
 * Off by default: approvals are opt-in (a headless worker must never wait for a person who
 * is not there). 600 s: long enough to notice and answer a request, short enough that a
 * forgotten one ends (as a block) instead of wedging the worker. The classifier answers
 * for the operator only when they opt in.
 */
export const DEFAULT_APPROVALS: ApprovalSettings = { interactive: false, timeout_seconds: 600, smart_auto_approve: false };

/** What to do with the call; `by` names the step that settled it (`profile:<name>`, `classifier`, …). */
export type ToolDecision =
  | { kind: 'allow'; by: string }
  | { kind: 'deny'; by: string; reason: string }
  | { kind: 'ask'; by: string; reason: string };

/** One tool call. `paths` are worktree-relative; `shell` is the analysis of a shell call's command. */
export interface DecideCall {
  tool: string;
  kind: ToolKind;
  paths: string[];
  input: unknown;
  shell?: ShellAnalysis;
}

/** Everything one decision needs; the caller compiles profile and always-allow once per session. */
export interface DecideInput {
  call: DecideCall;
  profile: CompiledProfile | null;
  alwaysAllow: CompiledAlwaysAllow;
  settings: ApprovalSettings;
}

/**
 * Decides one call. Order, first that settles wins:
 * 1. the permission profile refuses → deny (approvals on or off);
 * 2. the classifier rates the command `deny` → deny, headless included;
 * — when approvals are not interactive, nothing below happens: allow (`default`) —
 * 3. classifier `approve` and `smart_auto_approve` → allow;
 * 4. classifier `ask` → fall through;
 * 5. an always-allow rule matches → allow;
 * 6. ask a person (the caller queues it and waits).
 */
export function decideToolCall(input: DecideInput): ToolDecision {
  const { call, profile, alwaysAllow, settings } = input;
  if (profile !== null) {
    const checked = checkProfile(profile, call);
    if (!checked.ok) return { kind: 'deny', by: `profile:${profile.name}`, reason: checked.reason };
  }
  const sh = call.shell;
  if (sh?.class === 'deny') {
    return {
      kind: 'deny',
      by: 'classifier',
      reason: `Gatehouse refuses this command: ${sh.reason}. Do not retry it in another form; if the task needs it, ask the operator to run it themselves, or use a safer command.`,
    };
  }
  if (!settings.interactive) return { kind: 'allow', by: 'default' };
  if (sh?.class === 'approve' && settings.smart_auto_approve) return { kind: 'allow', by: 'classifier' };
  if (matchesAlwaysAllow(alwaysAllow, call) !== null) return { kind: 'allow', by: 'always-allow' };
  const why = sh === undefined ? '' : ` (the classifier: ${sh.reason})`;
  return {
    kind: 'ask',
    by: 'approvals',
    reason: `${summarizeInput(call.tool, call.input)} needs an operator's approval${why}. It waits up to ${settings.timeout_seconds} s; no answer counts as a refusal.`,
  };
}

/** Characters of a summary shown in queues and dashboards: one readable line. */
export const SUMMARY_MAX_CHARS = 200;

/** Line breaks show as a visible mark, so a multi-line command cannot hide its second line. */
const NEWLINE = /\r\n|\r|\n/g;

/**
 * Controls and bidi overrides are replaced: a summary is shown to the person who approves,
 * and escapes or reordered text must not make one command look like another.
 */
// eslint-disable-next-line no-control-regex
const UNSAFE_CHARS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;

/** Secret-looking values in a command line (`TOKEN=…`, `--password …`, `Authorization: Bearer …`). */
const SECRET_PATTERNS: readonly [RegExp, string][] = [
  [/\b([A-Za-z0-9_]*(?:TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|PRIVATE_KEY)[A-Za-z0-9_]*=)("[^"]*"|'[^']*'|\S+)/giu, '$1***'],
  [/(--?(?:password|passwd|token|secret|api-key)(?:=|\s+))("[^"]*"|'[^']*'|\S+)/giu, '$1***'],
  [/(authorization:\s*(?:bearer|basic|token)\s+)([^\s'"]+)/giu, '$1***'],
];

/**
 * A short, redacted summary of a call's input for the pending record and the person asked:
 * never file contents. Write → path and byte count; Edit/MultiEdit/NotebookEdit → path and
 * sizes; Bash → the command with secret-looking values masked; anything else → its keys only.
 * @example summarizeInput('Write', { file_path: 'a.ts', content: 'secret' }) // 'Write a.ts (6 bytes)'
 */
export function summarizeInput(tool: string, input: unknown, maxChars: number = SUMMARY_MAX_CHARS): string {
  const rec = typeof input === 'object' && input !== null && !Array.isArray(input) ? (input as Record<string, unknown>) : null;
  let text: string;
  if (rec === null) {
    text = `${tool} (${input === null || input === undefined ? 'no' : Array.isArray(input) ? 'list' : typeof input} input)`;
  } else if (tool === 'Write') {
    text = `Write ${pathOf(rec.file_path)} (${bytes(rec.content)} bytes)`;
  } else if (tool === 'Edit') {
    const all = rec.replace_all === true ? ', every occurrence' : '';
    text = `Edit ${pathOf(rec.file_path)} (replace ${bytes(rec.old_string)} bytes with ${bytes(rec.new_string)} bytes${all})`;
  } else if (tool === 'MultiEdit') {
    const edits = Array.isArray(rec.edits) ? rec.edits : [];
    const sum = (key: string): number => edits.reduce<number>((n, e) => n + (typeof e === 'object' && e !== null ? bytes((e as Record<string, unknown>)[key]) : 0), 0);
    text = `MultiEdit ${pathOf(rec.file_path)} (${edits.length} edits, ${sum('old_string')} → ${sum('new_string')} bytes)`;
  } else if (tool === 'NotebookEdit') {
    const mode = typeof rec.edit_mode === 'string' ? rec.edit_mode : 'replace';
    text = `NotebookEdit ${pathOf(rec.notebook_path)} (${mode}, ${bytes(rec.new_source)} bytes)`;
  } else if (tool === 'Bash' && typeof rec.command === 'string') {
    text = `Bash: ${SECRET_PATTERNS.reduce((s, [re, to]) => s.replace(re, to), rec.command)}`;
  } else {
    const keys = Object.keys(rec).sort();
    text = keys.length === 0 ? `${tool} (no arguments)` : `${tool} {${keys.join(', ')}}`;
  }
  return truncate(text.replace(NEWLINE, ' ↵ ').replace(UNSAFE_CHARS, '\uFFFD'), maxChars);
}

function pathOf(v: unknown): string {
  return typeof v === 'string' && v !== '' ? v : '(no path)';
}

const ENCODER = new TextEncoder();

function bytes(v: unknown): number {
  return typeof v === 'string' ? ENCODER.encode(v).length : 0;
}

function truncate(s: string, max: number): string {
  const chars = Array.from(s);
  if (chars.length <= max) return s;
  return `${chars.slice(0, Math.max(0, max - 1)).join('')}…`;
}
