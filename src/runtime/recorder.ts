// Seals gate outcomes as evidence: audit events in the project's hash chain, and evidence
// bundles for refused writes and completion verdicts. Failures are logged and swallowed.
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { parseAgentClaim } from '../core/agent-claim.js';
import type { Policy } from '../core/policy.js';
import type { ChainResult } from '../core/verifier-chain.js';
import type { Verdict } from '../core/verdict.js';
import { AuditLog } from './audit/log.js';
import type { AuditEventDataMap, AuditEventType } from './audit/events.js';
import type { AppendInput } from './audit/record.js';
import { sealEvidence } from './evidence/seal.js';
import type { EvidenceVerdict, EvidenceWhere, SealInput } from './evidence/statement.js';
import { loadOrCreateKey, type SigningKey } from './keys.js';
import type { ProducerResult } from './producers.js';
import type { Change } from './scope-baseline.js';
import { appendSessionLog, SESSION_FILES } from './session-layout.js';
import { sessionDir } from './state-dir.js';

/** The actor of decisions made inside hook processes. */
const HOOK_ACTOR = 'system:hook-gate';

/** The login name of the person running this process, safe for a principal id. */
export function osUserName(): string {
  try {
    return userInfo().username.replace(/[^A-Za-z0-9._@-]/g, '_') || 'unknown';
  } catch {
    // No passwd entry (containers).
    return 'unknown';
  }
}

/** The principal id of the person running the CLI. */
export function osUserActor(): string {
  return `os-user:${osUserName()}`;
}

/** The audit log of a project state dir. */
export function auditLogFor(projectState: string): AuditLog {
  return new AuditLog(join(projectState, 'audit'));
}

/** What names a session's audit log and session log: its project state folder and id. */
export type SessionRef = Pick<Policy, 'state_dir' | 'session_id'>;

function logFailure(policy: SessionRef, what: string, err: unknown): void {
  appendSessionLog(join(sessionDir(policy.state_dir, policy.session_id), SESSION_FILES.log), {
    kind: 'seal_error',
    what,
    error: err instanceof Error ? err.message : String(err),
  });
}

/** Runs `fn`, logging and swallowing any failure: sealing never changes a verdict. */
function guarded<T>(policy: SessionRef, what: string, fn: () => T): T | null {
  try {
    return fn();
  } catch (err) {
    logFailure(policy, what, err);
    return null;
  }
}

/** Appends one event to the project's audit log (guarded). */
export function recordEvent<T extends AuditEventType>(policy: SessionRef, type: T, actor: string, data: AuditEventDataMap[T]): void {
  guarded(policy, type, () => auditLogFor(policy.state_dir).append({ type, actor, session_id: policy.session_id, data }));
}

/**
 * Appends a decision's event and seals its evidence in one hold of the log's lock; the decision
 * is recorded even when its evidence cannot be sealed (the error is then thrown for `guarded`).
 */
function appendAndSeal(audit: AuditLog, policy: Policy, decision: AppendInput, input: SealInput): string {
  let key: SigningKey;
  try {
    key = loadOrCreateKey(policy.state_dir);
  } catch (err) {
    audit.append(decision);
    throw err;
  }
  return sealEvidence(policy.state_dir, input, key, audit, decision).id;
}

/** Records a PreToolUse decision; a refused write also gets an evidence bundle. */
export function recordGateDecision(policy: Policy, event: { tool: string; targets: string[] }, verdict: Verdict, inputDigest: string): string | null {
  if (verdict.decision === 'allow' && !policy.record_allows) return null;
  return guarded(policy, 'gate_decision', () => {
    const audit = auditLogFor(policy.state_dir);
    const decision: AppendInput<'gate_decision'> = {
      type: 'gate_decision',
      actor: HOOK_ACTOR,
      session_id: policy.session_id,
      data: {
        event: 'pre_tool',
        tool: event.tool,
        targets: event.targets,
        decision: verdict.decision,
        rule: verdict.rule,
        input_digest: inputDigest,
        ...(verdict.decision !== 'allow' ? { reason: verdict.reason } : {}),
      },
    };
    if (verdict.decision !== 'block' || !verdict.rule.startsWith('write.')) {
      audit.append(decision);
      return null;
    }
    return appendAndSeal(audit, policy, decision, {
      where: 'in_session',
      kind: 'write_refused',
      verdict: 'refused',
      decided_by: verdict.rule,
      reason: verdict.reason,
      verifiers: [],
      producers: [],
      scope: null,
      policy,
      write: { tool: event.tool, targets: event.targets, rule: verdict.rule },
      agent_claim: null,
    });
  });
}

function producersOf(result: ChainResult): ProducerResult[] {
  const rec = result.records.find((r) => r.name === 'evidence_producers');
  return Array.isArray(rec?.detail) ? (rec.detail as ProducerResult[]) : [];
}

function scopeOf(result: ChainResult): { changed: Change[]; outside: Change[] } | null {
  const d = result.records.find((r) => r.name === 'scope_check')?.detail as { changed?: Change[]; outside?: Change[] } | undefined;
  return d?.changed ? { changed: d.changed, outside: d.outside ?? [] } : null;
}

/** What the verdict of a completion check was, for the evidence. */
function completionVerdict(result: ChainResult, unverified: boolean): EvidenceVerdict {
  if (unverified) return 'unverified';
  return result.outcome === 'continue' ? 'pass' : result.outcome === 'halt' ? 'halt' : 'fail';
}

/** Records a completion verdict (in-session Stop or end of session) and seals its evidence. */
export function recordCompletion(
  policy: Policy,
  where: EvidenceWhere,
  result: ChainResult,
  opts: { unverified?: boolean; lastMessage?: string | null; inputDigest?: string; actor?: string } = {},
): string | null {
  return guarded(policy, 'completion_verdict', () => {
    const audit = auditLogFor(policy.state_dir);
    const verifiers = result.records.map((r) => ({
      name: r.name,
      outcome: r.outcome,
      ...(r.reason !== undefined ? { reason: r.reason } : {}),
      ...(r.summary !== undefined ? { summary: r.summary } : {}),
    }));
    const decision: AppendInput<'completion_verdict'> = {
      type: 'completion_verdict',
      actor: opts.actor ?? HOOK_ACTOR,
      session_id: policy.session_id,
      data: {
        where,
        // `outcome` is the chain's own word ("continue" = the stop may go through); `verdict` says pass or not.
        verdict: completionVerdict(result, opts.unverified ?? false),
        outcome: opts.unverified ? 'allow' : result.outcome,
        decided_by: result.decidedBy,
        failed_checks: result.failed,
        reason: result.reason,
        verifiers,
        ...(opts.inputDigest ? { input_digest: opts.inputDigest } : {}),
      },
    };
    const claim = parseAgentClaim(opts.lastMessage ?? null);
    return appendAndSeal(audit, policy, decision, {
      where,
      kind: 'completion_verdict',
      verdict: completionVerdict(result, opts.unverified ?? false),
      decided_by: result.decidedBy,
      reason: result.reason,
      verifiers,
      producers: producersOf(result),
      scope: scopeOf(result),
      policy,
      write: null,
      agent_claim: claim,
    });
  });
}

/**
 * Records that a session's own files were tampered with. Best effort, like every seal: the
 * refusal does not depend on it, and a log that cannot be written is noted in the session log.
 */
export function recordTamper(projectState: string, sessionId: string, data: AuditEventDataMap['tamper_detected']): void {
  try {
    auditLogFor(projectState).append({ type: 'tamper_detected', actor: HOOK_ACTOR, session_id: sessionId, data });
  } catch (err) {
    appendSessionLog(join(sessionDir(projectState, sessionId), SESSION_FILES.log), { kind: 'seal_error', what: 'tamper_detected', error: err instanceof Error ? err.message : String(err) });
  }
}

/** Writes a signed checkpoint of the project's audit log now (guarded). */
export function writeCheckpoint(policy: SessionRef): void {
  guarded(policy, 'checkpoint', () => auditLogFor(policy.state_dir).checkpoint(loadOrCreateKey(policy.state_dir)));
}
