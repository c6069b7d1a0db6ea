// The decision order for one tool call: profile, classifier deny-list, classifier approve,
// always-allow, then ask a person (interactive) or allow (headless). First that settles wins.
import type { ToolKind } from '../event.js';
import { matchesAlwaysAllow, type CompiledAlwaysAllow } from './always-allow.js';
import { checkProfile, type CompiledProfile } from './profiles.js';
import type { ShellAnalysis } from '../shell/index.js';
import { MAX_REVIEW_CHARS, shortSummary, summarizeCall } from './summary.js';
import { resolveView, type CallView } from '../tool-view.js';
import { clause, sentence } from '../sentence.js';
import { safeForDisplay } from '../display.js';
import { redactText } from '../redact-argv.js';

/** The `approvals` config section. */
export interface ApprovalSettings {
  interactive: boolean;
  timeout_s: number;
  smart_auto_approve: boolean;
}

/**
 * Off by default: approvals are opt-in (a headless worker must never wait for a person who
 * is not there). 600 s: long enough to notice and answer a request, short enough that a
 * forgotten one ends (as a block) instead of wedging the worker. The classifier answers
 * for the operator only when they opt in.
 */
export const DEFAULT_APPROVALS: ApprovalSettings = { interactive: false, timeout_s: 600, smart_auto_approve: false };

/**
 * What to do with the call; `by` names the step that settled it (`profile:<name>`, `classifier`, …).
 * An `ask` carries the whole summary the person is shown (see {@link summarizeCall}).
 */
export type ToolDecision = { kind: 'allow'; by: string } | { kind: 'deny'; by: string; reason: string } | { kind: 'ask'; by: string; reason: string; summary: string; why: string; rule: string };

/** One tool call. `paths` are worktree-relative; `shell` is the analysis of a shell call's command. */
export interface DecideCall {
  tool: string;
  kind: ToolKind;
  paths: string[];
  input: unknown;
  /** How the call is shown to a person (its adapter's view of the tool); all its arguments when absent. */
  view?: CallView;
  shell?: ShellAnalysis;
}

/** Everything one decision needs; the caller compiles profile and always-allow once per session. */
export interface DecideInput {
  call: DecideCall;
  profile: CompiledProfile | null;
  alwaysAllow: CompiledAlwaysAllow;
  settings: ApprovalSettings;
}

/** `a Write`, `an edit`: the call's tool named for the reason a person reads. */
function aTool(call: DecideCall): string {
  return `${/^[aeiou]/i.test(call.tool) ? 'an' : 'a'} ${call.tool}`;
}

/** The step of the decision order that left the call to a person, as an approval card names it. */
function askingRule(sh: ShellAnalysis | undefined): string {
  if (sh?.class === 'ask') return 'the shell classifier asks about this command, and no always-allow rule matches it';
  if (sh?.class === 'approve') return 'the shell classifier rates it read-only, but smart_auto_approve is off, and no always-allow rule matches it';
  return 'approvals.interactive is on, and no permission profile or always-allow rule settles this call';
}

/**
 * Decides one call. Order, first that settles wins:
 * 1. the permission profile refuses → deny (approvals on or off);
 * 2. the classifier rates the command `deny` → deny, headless included;
 * — when approvals are not interactive, nothing below happens: allow (`default`) —
 * 3. classifier `approve` and `smart_auto_approve` → allow;
 * 4. classifier `ask` → fall through;
 * 5. an always-allow rule matches → allow;
 * 6. ask a person (the caller queues it and waits) — unless the call is too long to show
 *    whole ({@link MAX_REVIEW_CHARS}): then deny, for a person never approves what they cannot see.
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
      // The classifier's reason is already a whole refusal with the way forward.
      reason: `${sentence(sh.reason)} If the task needs it, ask the operator to run it themselves, or use a safer command.`,
    };
  }
  if (!settings.interactive) return { kind: 'allow', by: 'default' };
  if (sh?.class === 'approve' && settings.smart_auto_approve) return { kind: 'allow', by: 'classifier' };
  if (matchesAlwaysAllow(alwaysAllow, call) !== null) return { kind: 'allow', by: 'always-allow' };
  const summary = summarizeCall(call.tool, call.view ?? resolveView(undefined, call.input));
  if (summary.length > MAX_REVIEW_CHARS) {
    return {
      kind: 'deny',
      by: 'review-length',
      reason: `This ${call.tool} call needs an operator's approval, but at ${summary.length} characters it is longer than a person can be shown whole (${MAX_REVIEW_CHARS}), so Gatehouse refuses it rather than ask about part of it. Split it into shorter calls, each short enough to review.`,
    };
  }
  const classifier = sh === undefined ? '' : ` (the classifier: ${clause(sh.reason)})`;
  return {
    kind: 'ask',
    by: 'approvals',
    reason: `${shortSummary(summary)} needs an operator's approval${classifier}. It waits up to ${settings.timeout_s} s; no answer counts as a refusal.`,
    summary,
    // What the person is told: why this call, of all calls, is theirs to answer. The classifier's
    // reason quotes the command's words, so it is masked and made inert as the summary is.
    why: safeForDisplay(redactText(sh !== undefined ? sentence(sh.reason) : `Approvals are interactive, and no permission profile or always-allow rule settles ${aTool(call)} call.`)),
    rule: askingRule(sh),
  };
}
