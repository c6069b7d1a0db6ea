// Steps 1-6 of the decision order for one tool call (permission profile, classifier,
// always-allow, human review) and the wait for a person through the one approval queue.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileAlwaysAllow, rulesForAlways, type AlwaysAllowRule } from '../core/approvals/always-allow.js';
import { decideToolCall } from '../core/approvals/decide.js';
import { compileProfile } from '../core/approvals/profiles.js';
import type { PreToolEvent } from '../core/event.js';
import type { Policy } from '../core/policy.js';
import type { ShellAnalysis } from '../core/shell/index.js';
import { allow, block, type Verdict } from '../core/verdict.js';
import { ApprovalQueue } from '../runtime/approvals/index.js';
import { writeFileAtomic } from '../runtime/fs-atomic.js';
import { recordEvent } from '../runtime/recorder.js';
import { sentence } from '../core/sentence.js';

/** Rules added by "always" resolutions, kept beside the queue for the whole project. */
export function alwaysAllowFile(projectState: string): string {
  return join(projectState, 'approvals', 'always-allow.json');
}

function readAddedRules(projectState: string): AlwaysAllowRule[] {
  try {
    const v = JSON.parse(readFileSync(alwaysAllowFile(projectState), 'utf8')) as unknown;
    return Array.isArray(v) ? (v as AlwaysAllowRule[]) : [];
  } catch {
    return [];
  }
}

function addRules(projectState: string, rules: AlwaysAllowRule[]): void {
  const all = [...readAddedRules(projectState), ...rules];
  writeFileAtomic(alwaysAllowFile(projectState), `${JSON.stringify(all, null, 2)}\n`, { mode: 0o600 });
}

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
export async function approvalStep(policy: Policy, event: PreToolEvent, facts: CallFacts): Promise<Verdict> {
  const profile = policy.permissions.profile !== null ? compileProfile(policy.permissions.profile, policy.permissions.custom) : null;
  const rules = compileAlwaysAllow([...policy.approvals.always_allow, ...readAddedRules(policy.state_dir)]);
  if (!rules.ok) return block('approvals.rules', `Gatehouse cannot read its always-allow rules (${rules.reason}); the call is refused until the operator fixes them.`);
  const call = { tool: event.tool, kind: event.toolKind, paths: facts.paths, input: event.input, ...(facts.shell ? { shell: facts.shell } : {}) };
  const decision = decideToolCall({ call, profile, alwaysAllow: rules.value, settings: policy.approvals });
  if (decision.kind === 'allow') return allow(`approvals.${decision.by}`);
  if (decision.kind === 'deny') return block(`approvals.${decision.by}`, decision.reason);

  const queue = new ApprovalQueue(policy.state_dir);
  const pending = queue.enqueue({ session_id: policy.session_id, agent: policy.agent, tool: event.tool, summary: decision.summary, ttlSeconds: policy.approvals.timeout_seconds });
  // Whoever wrote the answer (a person on any surface, or the queue at expiry) recorded it.
  const resolution = await queue.waitFor(pending.id);
  if (resolution.decision === 'reject') {
    const why = resolution.expired ? `nobody answered within ${policy.approvals.timeout_seconds} s, so it is denied` : `${resolution.principal.id} rejected it${resolution.reason ? `: ${resolution.reason}` : ''}`;
    return block('approvals.human', `${sentence(`Gatehouse asked a person to review this ${event.tool} call and ${why}`)} Do not retry the same call; take another approach or finish and explain what you needed.`);
  }
  if (resolution.decision === 'always') {
    const added = rulesForAlways(call);
    try {
      addRules(policy.state_dir, added);
      for (const rule of added) recordEvent(policy, 'always_allow_added', resolution.principal.id, { approval_id: pending.id, tool: rule.tool, rule: JSON.stringify(rule.match) });
    } catch {
      // The call is still allowed; the rule is simply not remembered.
    }
  }
  return allow(`approvals.${resolution.decision}:${resolution.principal.id}`);
}
