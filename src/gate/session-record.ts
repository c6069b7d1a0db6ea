// One recorded session as the dashboard shows it: its decisions from the audit log in words,
// its end verdict, whether the log verifies, and its worktree's changes since the baseline,
// compared from the trusted copies exactly as the end-of-session check compares them.
import { describeDecision, endVerdictView, type RecordedEndVerdict } from '../core/decision-words.js';
import { scopeExclusions } from '../core/policy.js';
import type { SessionDetail, SessionDiff, TimelineEntry } from '../protocol/sessions.js';
import type { AuditEvent } from '../runtime/audit/index.js';
import { changedSince, realPath, ScopeBudgetError } from '../runtime/scope-baseline.js';
import { sessionDecisions } from '../runtime/session-decisions.js';
import { sessionSummary } from '../runtime/session-list.js';
import type { SessionStore } from '../runtime/session-store.js';
import { worktreeDiff, type DiffLimits } from '../runtime/worktree-diff.js';
import { trustedCopies } from './session-trusted.js';
import { stateInside } from './stop-chain.js';

/** Bounds on one record: its timeline and its diff. */
export interface RecordLimits extends DiffLimits {
  /** Newest decisions included. */
  timeline: number;
  /** Characters of one decision's reason; longer ones are cut with `…`. */
  reasonChars: number;
  /** How long comparing the worktree with its baseline may take. */
  compareMs: number;
}

/** A decision that went against the agent (or its work): a refusal, a rejection, a failed check, tampering. */
function refused(e: AuditEvent): boolean {
  const d = e.data as Record<string, unknown>;
  if (e.type === 'gate_decision') return d.decision === 'block' || d.decision === 'halt';
  if (e.type === 'completion_verdict') return d.verdict === 'fail' || d.verdict === 'halt' || (d.verdict === undefined && (d.outcome === 'block' || d.outcome === 'halt'));
  if (e.type === 'human_approval_decision') return d.decision === 'reject';
  return true;
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** The decision events in words, for the timeline. */
function timelineOf(events: readonly AuditEvent[], worktree: string | null, reasonChars: number): TimelineEntry[] {
  return events.map((e) => {
    const { what, reason } = describeDecision(e, worktree);
    const decidedBy = (e.data as Record<string, unknown>).decided_by;
    return {
      seq: e.seq,
      time: String(e.time),
      type: e.type as TimelineEntry['type'],
      what,
      reason: clip(reason, reasonChars),
      by: e.type === 'human_approval_decision' && typeof decidedBy === 'string' ? decidedBy : null,
      refused: refused(e),
    };
  });
}

/** The worktree's changes since the start, from the trusted policy and baseline only. */
async function diffOf(store: SessionStore, active: boolean, limits: RecordLimits): Promise<SessionDiff> {
  const none = (problem: string): SessionDiff => ({ files: [], total: 0, problem });
  const copies = trustedCopies(store);
  if (!copies.ok) return none(`the changes are not shown: ${copies.reason}`);
  const { policy, baseline } = copies.value;
  if (baseline === null)
    return none('the session was started without an allowlist, so it recorded no baseline of its worktree and its changes cannot be listed (start one with --allow to have them recorded)');
  // As the end-of-session check: while the hooks are rendered, their settings files differ by design.
  const exclude = [...scopeExclusions(policy, active), ...stateInside(policy)];
  try {
    const changes = await changedSince(policy.worktree, baseline, { exclude, allow: policy.allow, deadline: Date.now() + limits.compareMs });
    return { files: await worktreeDiff(realPath(policy.worktree), baseline, changes, limits), total: changes.length, problem: null };
  } catch (err) {
    if (err instanceof ScopeBudgetError) return none(`the worktree could not be compared with its baseline within ${limits.compareMs / 1000} s; \`gatehouse session check\` compares it in full`);
    return none(`the worktree could not be compared with its baseline: ${(err as Error).message}`);
  }
}

/**
 * Everything the dashboard shows of one session. `ptyId` is the live PTY that runs it, if any.
 * @example (await sessionRecord(store, null, limits)).verdict?.word // 'failed'
 */
export async function sessionRecord(store: SessionStore, ptyId: string | null, limits: RecordLimits): Promise<SessionDetail> {
  const session = sessionSummary(store, ptyId);
  const meta = store.meta();
  const recorded = meta.ok && typeof meta.value === 'object' && meta.value !== null ? meta.value : null;
  const worktree = typeof recorded?.worktree === 'string' ? recorded.worktree : '';
  const found = sessionDecisions(store.projectState, store.id, limits.timeline);
  const endVerdict = (recorded?.end_verdict ?? null) as (RecordedEndVerdict & { evidence_id?: unknown }) | null;
  const view = endVerdictView(typeof endVerdict === 'object' ? endVerdict : null, found.endVerdict);
  return {
    session,
    worktree,
    timeline: timelineOf(found.events, worktree === '' ? null : worktree, limits.reasonChars),
    timeline_total: found.total,
    verdict:
      view === null
        ? null
        : { word: view.word, summary: view.summary, source: view.source, meta_says: view.metaSays, evidence_id: typeof endVerdict?.evidence_id === 'string' ? endVerdict.evidence_id : null },
    audit: found.audit,
    diff: await diffOf(store, session.status === 'active', limits),
  };
}
