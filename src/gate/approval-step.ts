// Steps 1-6 of the decision order for one tool call (permission profile, classifier,
// always-allow, human review) and the wait for a person through the one approval queue.
import { join } from 'node:path';
import { alwaysTargetFor, compileAlwaysAllow, rulesForAlways } from '../core/approvals/always-allow.js';
import { alwaysScopeOf } from '../core/approvals/always-scope.js';
import { decideToolCall, type ToolDecision } from '../core/approvals/decide.js';
import { compileProfile } from '../core/approvals/profiles.js';
import type { PreToolEvent } from '../core/event.js';
import type { Policy } from '../core/policy.js';
import type { ShellAnalysis } from '../core/shell/index.js';
import { allow, block, type Verdict } from '../core/verdict.js';
import { addStoredRules, isRuleRecorded, readStoredRules, rulesInForce, type StoredRule } from '../runtime/approvals/always-rules.js';
import { AuditLog } from '../runtime/audit/log.js';
import { ApprovalQueue, WITHDRAWN_PRINCIPAL } from '../runtime/approvals/index.js';
import { sentence } from '../core/sentence.js';
import { callDetail, type ApprovalDetail } from '../core/approvals/detail.js';
import { resolveView } from '../core/tool-view.js';
import { canonicalJson } from '../core/crypto/canonical-json.js';
import { readForReview } from '../runtime/review-file.js';

/** What the approval step knows about the call beyond the event. */
export interface CallFacts {
  /** Worktree-relative paths the call writes (resolved). */
  paths: string[];
  shell?: ShellAnalysis;
}

/**
 * Runs the decision order for one tool call; `ask` enqueues it and waits for a person (or the
 * TTL). The queue records every resolution where it is made, with its principal as the actor,
 * so an answer is in the audit log even if this process dies waiting.
 */
export async function approvalStep(policy: Policy, event: PreToolEvent, facts: CallFacts, signal?: AbortSignal): Promise<Verdict> {
  const profile = policy.permissions.profile !== null ? compileProfile(policy.permissions.profile, policy.permissions.custom) : null;
  const call = { tool: event.tool, kind: event.toolKind, paths: facts.paths, input: event.input, ...(event.view ? { view: event.view } : {}), ...(facts.shell ? { shell: facts.shell } : {}) };
  // An unreadable rules file adds nothing: its calls are asked about, never allowed unseen.
  const stored = readStoredRules(policy.state_dir);
  const answered = stored.ok ? rulesInForce(stored.value, policy.session_id) : [];
  const decideWith = (extra: readonly StoredRule[]): ToolDecision | string => {
    const rules = compileAlwaysAllow([...policy.approvals.always_allow, ...extra.map((r) => ({ tool: r.tool, match: r.match }))]);
    return rules.ok ? decideToolCall({ call, profile, alwaysAllow: rules.value, settings: policy.approvals }) : rules.reason;
  };
  let decision = decideWith(answered);
  // A rule from the file allows only if the audit log records a person making it (and no
  // revocation since): the file alone, written around Gatehouse, grants nothing. Checked only
  // when an always-allow would decide, so other calls never read the log.
  if (typeof decision !== 'string' && decision.kind === 'allow' && decision.by === 'always-allow' && answered.length > 0) {
    const audit = new AuditLog(join(policy.state_dir, 'audit'));
    const vouched = answered.filter((r) => isRuleRecorded(audit, r));
    if (vouched.length < answered.length) decision = decideWith(vouched);
  }
  if (typeof decision === 'string') return block('approvals.rules', `Gatehouse cannot read its always-allow rules (${decision}); the call is refused until the operator fixes them.`);
  if (decision.kind === 'allow') return allow(`approvals.${decision.by}`);
  if (decision.kind === 'deny') return block(`approvals.${decision.by}`, decision.reason);

  const queue = new ApprovalQueue(policy.state_dir);
  // What "always" would add is filed with the request, so every surface shows it before anyone answers.
  const always = alwaysTargetFor(call);
  const detail = detailOf(policy, event, facts, decision);
  const pending = queue.enqueue({
    session_id: policy.session_id,
    agent: policy.agent,
    tool: event.tool,
    summary: decision.summary,
    why: decision.why,
    always,
    detail,
    ttlSeconds: policy.approvals.timeout_s,
  });
  // Whoever wrote the answer (a person on any surface, or the queue at expiry) recorded it.
  let resolution;
  try {
    resolution = await queue.waitFor(pending, signal ? { signal } : {});
  } catch (err) {
    if (signal?.aborted !== true) throw err;
    // Whoever asked is gone: the request is withdrawn, so no one answers a call that will not run.
    queue.resolve(pending.id, { decision: 'reject', reason: 'the tool call was cancelled while it waited', principal: WITHDRAWN_PRINCIPAL });
    return block('approvals.withdrawn', `The ${event.tool} call was cancelled while it waited for a person, so Gatehouse withdrew the request.`);
  }
  if (resolution.decision === 'reject') {
    const why = resolution.expired
      ? `nobody answered within ${policy.approvals.timeout_s} s, so it is denied`
      : `${resolution.principal.id} rejected it${resolution.reason ? `: ${resolution.reason}` : ''}`;
    return block(
      'approvals.human',
      `${sentence(`Gatehouse asked a person to review this ${event.tool} call and ${why}`)} Do not retry the same call; take another approach or finish and explain what you needed.`,
    );
  }
  // The person answered what the record on disk showed. If it no longer says what this hook
  // filed (the summary, or what "always" covers), the answer may be about another call.
  const shown = queue.get(pending.id).pending;
  // `why` too: the person also read why they were asked, and that is the agent's to rewrite as well.
  if (
    shown === null ||
    shown.summary !== pending.summary ||
    shown.tool !== pending.tool ||
    shown.why !== pending.why ||
    canonicalJson(shown.detail ?? null) !== canonicalJson(pending.detail ?? null) ||
    JSON.stringify(shown.always ?? null) !== JSON.stringify(pending.always ?? null)
  ) {
    return block(
      'approvals.changed-record',
      `The approval request for this ${event.tool} call was changed on disk after it was filed, so the answer may be about something else; Gatehouse refuses the call. Do not retry the same call; finish and explain what you needed.`,
    );
  }
  const scope = alwaysScopeOf(resolution.decision);
  // Only what the request showed: no target filed (an older request), no rule.
  if (scope !== null && pending.always) {
    try {
      addStoredRules(policy.state_dir, { rules: rulesForAlways(call), scope, session_id: policy.session_id, principal: resolution.principal, approval_id: pending.id });
    } catch {
      // The call is still allowed; the rule is simply not remembered.
    }
  }
  return allow(`approvals.${resolution.decision}:${resolution.principal.id}`);
}

/** What the card shows: the diff against the file as it is now, the command's context, or the input. */
function detailOf(policy: Policy, event: PreToolEvent, facts: CallFacts, decision: { why: string; rule: string }): ApprovalDetail {
  const raw = event.view ?? resolveView(undefined, event.input);
  const target = facts.paths[0];
  const writes = raw.kind === 'write' || raw.kind === 'edit';
  // The file as the gate resolved it (worktree-relative), not as the agent spelled it.
  const view = writes && target !== undefined ? { ...raw, path: target } : raw;
  const current = writes ? (target === undefined ? { kind: 'unreadable' as const, why: 'the call names no file' } : readForReview(policy.worktree, target)) : null;
  return callDetail({ tool: event.tool, input: event.input, view, current, cwd: event.cwd, why: decision.why, rule: decision.rule });
}
