// Relays one machine's local approval queue and the team store, both ways: requests hooks
// filed locally go up (inserted once, announced), answers given in the store come down
// through the local queue's own exactly-once path, and local answers go up conditionally.
import { join } from 'node:path';
import { systemPrincipal, type Principal } from '../../core/approvals/principal.js';
import { ApprovalQueue, RESOLVED_RETENTION_MS, type PendingApproval, type Resolution } from '../approvals/index.js';
import { isRecorded, UNVOUCHED_REASON } from '../approvals/answer.js';
import { approvalPaths, recordIds } from '../approvals/files.js';
import { CORRUPT_RECORD_PRINCIPAL } from '../approvals/system-principals.js';
import { AuditLog } from '../audit/log.js';
import { isSafeSessionId } from '../state-dir.js';
import type { LinkContext, LinkPart, StartPart } from './link-part.js';
import { isConnectionError } from './pg-connect.js';
import { expireDue, insertRequest, recordApplied, resolutionOf, resolveOnce, rowsById, type ApprovalNotice, type ApprovalRow } from './pg-approval-rows.js';
import { backoffMs, listenApprovals, type ApprovalListener } from './pg-listen.js';
import { postureOf } from './session-posture.js';

/** Poll period: the guarantee behind LISTEN, which misses whatever is announced while its connection is down. */
const POLL_MS = 1_000;
/**
 * How long the store may be unreachable before a fail-closed session's open requests are denied
 * on this machine: long enough for a database restart or a failover, short enough that an agent
 * is not left waiting on a request no one on the team can see.
 */
const STORE_GRACE_MS = 30_000;

/** Who denies a fail-closed session's request when the team store stayed unreachable past the grace period. */
const STORE_UNREACHABLE_PRINCIPAL: Principal = systemPrincipal('approval-relay/store-unreachable');
/** The actor of the audit event that records a conflict between the store's answer and the agent's. */
const RELAY_ACTOR = 'system:approval-relay';

/** Tuning of one relay; the defaults are what `gatehouse run` and `serve` use. */
export interface RelayOptions {
  /** Poll period in ms (default 1 s). */
  pollMs?: number;
  /** LISTEN for answers besides polling (default true; false exercises the polling fallback). */
  listen?: boolean;
  /** Unreachable time after which fail-closed requests are denied locally (default 30 s). */
  storeGraceMs?: number;
}

/**
 * Whether two answers are one outcome: the same decision, given by the same principal or both
 * by Gatehouse itself (the store's expiry and the local queue's are the same event).
 */
function sameOutcome(a: { decision: string; principal: Principal }, b: { decision: string; principal: Principal }): boolean {
  if (a.decision !== b.decision) return false;
  return a.principal.id === b.principal.id || (a.principal.auth === 'server-internal' && b.principal.auth === 'server-internal');
}

/** A relay part with `opts`; {@link startApprovalRelay} is the default one. */
export function approvalRelay(opts: RelayOptions = {}): StartPart {
  return (ctx) => Promise.resolve(new ApprovalRelay(ctx, opts).start());
}

/**
 * The approval part of a machine's team link: starts relaying at once and keeps going until
 * stopped, surviving the database going away (it retries with backoff and catches up).
 * @example const part = await startApprovalRelay(ctx); await part.flush(); await part.stop();
 */
export const startApprovalRelay: StartPart = approvalRelay();

class ApprovalRelay {
  private readonly queue: ApprovalQueue;
  private readonly audit: AuditLog;
  private readonly pendingDir: string;
  private readonly pollMs: number;
  private readonly graceMs: number;
  /** Ids whose row holds what this machine's agent acted on: nothing more to do. */
  private readonly done = new Set<string>();
  private readonly warned = new Set<string>();
  private chain: Promise<unknown> = Promise.resolve();
  private queued = false;
  private stopped = false;
  private unreachableSince: number | null = null;
  private failures = 0;
  private nextTryAt = 0;
  private lastExpiry = 0;
  private poll: NodeJS.Timeout | null = null;
  private localWatch: { close(): void } | null = null;
  private listener: ApprovalListener | null = null;

  constructor(
    private readonly ctx: LinkContext,
    private readonly opts: RelayOptions,
  ) {
    this.queue = new ApprovalQueue(ctx.projectState);
    this.audit = new AuditLog(join(ctx.projectState, 'audit'));
    this.pendingDir = approvalPaths(ctx.projectState).pending;
    this.pollMs = opts.pollMs ?? POLL_MS;
    this.graceMs = opts.storeGraceMs ?? STORE_GRACE_MS;
  }

  start(): LinkPart {
    this.localWatch = this.queue.watch(() => this.kick(true));
    this.poll = setInterval(() => this.kick(false), this.pollMs);
    this.poll.unref();
    if (this.opts.listen !== false) {
      const mine = (n: ApprovalNotice): void => {
        if (n.machine === this.ctx.machine.id && n.event === 'resolved') this.kick(true);
      };
      this.listener = listenApprovals(this.ctx.store, mine, { onUp: () => this.kick(true) });
    }
    this.kick(true);
    return {
      flush: () => this.serial(() => this.sync()),
      stop: () => this.stop(),
    };
  }

  private async stop(): Promise<void> {
    this.stopped = true;
    if (this.poll !== null) clearInterval(this.poll);
    this.localWatch?.close();
    await this.listener?.close();
    await this.chain;
  }

  /** Runs `fn` after every sync before it: one sync at a time, in order. */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const p = this.chain.then(fn, fn);
    this.chain = p.catch(() => {});
    return p;
  }

  /** Schedules one sync (coalescing requests made before it starts); a poll waits out the backoff. */
  private kick(now: boolean): void {
    if (this.stopped || this.queued || (!now && Date.now() < this.nextTryAt)) return;
    this.queued = true;
    void this.serial(async () => {
      this.queued = false;
      if (this.stopped) return;
      try {
        await this.sync();
      } catch {
        // Reported by sync itself; the poll tries again.
      }
    });
  }

  /** One pass: expire what is due, file what is new, bring answers down and push local ones up. */
  private async sync(): Promise<void> {
    try {
      await this.syncOnce();
      this.reachable();
    } catch (err) {
      if (isConnectionError(err)) this.unreachable(err);
      else this.warnOnce(`bug:${String(err)}`, `approval relay: ${err instanceof Error ? err.message : String(err)}; retrying`);
      this.nextTryAt = Date.now() + backoffMs(this.failures++);
      throw err;
    }
  }

  private async syncOnce(): Promise<void> {
    const { pool } = this.ctx.store;
    const me = this.ctx.machine.id;
    // Once per poll period: a sync woken by an answer goes straight to bringing it down.
    if (Date.now() - this.lastExpiry >= this.pollMs) {
      await expireDue(pool, me);
      this.lastExpiry = Date.now();
    }
    const oldest = Date.now() - RESOLVED_RETENTION_MS;
    const local = new Map<string, { pending: PendingApproval; resolution: Resolution | null }>();
    for (const id of recordIds(this.pendingDir)) {
      if (this.done.has(id)) continue;
      const st = this.queue.get(id);
      if (st.pending === null) {
        if (st.problem !== null) this.warnOnce(`corrupt:${id}`, `approval relay: ${st.problem.message}; it is not forwarded to the team store`);
        continue;
      }
      if (Date.parse(st.pending.created_at) < oldest) continue;
      local.set(id, { pending: st.pending, resolution: st.resolution === null ? null : this.actedOn(st.resolution) });
    }
    const rows = await rowsById(pool, [...local.keys()]);
    for (const [id, { pending, resolution }] of local) {
      let row = rows.get(id);
      if (row === undefined) {
        await insertRequest(pool, pending, this.ctx.machine, this.ctx.projectKey);
        row = (await rowsById(pool, [id])).get(id);
        if (row === undefined) throw new Error(`approval ${id} was filed in the team store but cannot be read back`);
      }
      if (row.machine_id !== me) {
        this.warnOnce(`clash:${id}`, `approval relay: the team store holds ${id} for machine ${row.machine_id}, not this one; it is not relayed`);
        this.done.add(id);
        continue;
      }
      if (row.applied_decision !== null) {
        this.done.add(id);
        continue;
      }
      await this.settleOne(pending, resolution, row);
    }
  }

  /**
   * What the waiting hook acts on for an answer on file: the answer when the local audit log
   * vouches for it, as the hook checks (answer.ts); else the denial the hook gives instead. A
   * resolution file written around the queue (by an agent without a sandbox, say) is never
   * passed on as a person's answer.
   */
  private actedOn(r: Resolution): Resolution {
    if (r.principal.id === CORRUPT_RECORD_PRINCIPAL.id || isRecorded(this.audit, r)) return r;
    this.warnOnce(`unvouched:${r.id}`, `approval relay: the answer on file for ${r.id} is not in this machine's audit log; the team store gets the denial its agent got instead`);
    return { id: r.id, decision: 'reject', reason: `${UNVOUCHED_REASON}; denied to be safe`, principal: CORRUPT_RECORD_PRINCIPAL, resolved_at: r.resolved_at };
  }

  /** Brings the store's answer down, or pushes the local one up, and records what the agent got. */
  private async settleOne(pending: PendingApproval, localAnswer: Resolution | null, row: ApprovalRow): Promise<void> {
    let local = localAnswer;
    let stored = resolutionOf(row);
    if (local === null) {
      if (stored === null) return;
      local = this.applyLocally(pending, stored);
      if (local === null) return;
    }
    if (stored === null) {
      const won = await resolveOnce(this.ctx.store.pool, pending.id, {
        decision: local.decision,
        principal: local.principal,
        reason: local.reason,
        expired: local.expired === true,
        byMachine: this.ctx.machine.id,
        at: local.resolved_at,
        applied: true,
      });
      if (won !== null) return void this.done.add(pending.id);
      // Someone answered in the store meanwhile: compare with what the agent got.
      const again = (await rowsById(this.ctx.store.pool, [pending.id])).get(pending.id);
      stored = again === undefined ? null : resolutionOf(again);
      if (stored === null) throw new Error(`approval ${pending.id} refused this machine's answer and holds none`);
    }
    const conflict = !sameOutcome(stored, local);
    const recorded = await recordApplied(this.ctx.store.pool, pending.id, local, conflict, () => {
      if (conflict) this.recordConflict(pending, stored, local);
    });
    if (recorded && conflict) {
      this.ctx.warn(
        `approval ${pending.id}: the team store says ${stored.decision} by ${stored.principal.id}, but this machine's agent was answered ${local.decision} by ${local.principal.id}; both are recorded`,
      );
    }
    this.done.add(pending.id);
  }

  /**
   * Writes the store's answer into the local queue, which records it (principal as actor) and
   * wakes the waiting hook; returns the answer that stands there now, or null to try later.
   */
  private applyLocally(pending: PendingApproval, stored: Resolution): Resolution | null {
    const r = this.queue.resolve(pending.id, { decision: stored.decision, reason: stored.reason, principal: stored.principal, nonce: pending.nonce });
    if (r.ok) return r.value;
    if (r.error.code === 'already_resolved') return this.queue.get(pending.id).resolution;
    this.warnOnce(`apply:${pending.id}:${r.error.code}`, `approval relay: cannot apply the team store's answer to ${pending.id} here (${r.error.message})`);
    return null;
  }

  /** One `approval_conflict` event in the local log, unless an earlier try already wrote it. */
  private recordConflict(pending: PendingApproval, stored: Resolution, local: Resolution): void {
    const already = this.audit.tail(256).some((e) => e.type === 'approval_conflict' && (e.data as { approval_id?: unknown }).approval_id === pending.id);
    if (already) return;
    this.audit.append({
      type: 'approval_conflict',
      actor: RELAY_ACTOR,
      session_id: isSafeSessionId(pending.session_id) ? pending.session_id : null,
      data: {
        approval_id: pending.id,
        tool: pending.tool,
        store_decision: stored.decision,
        store_decided_by: stored.principal.id,
        applied_decision: local.decision,
        applied_decided_by: local.principal.id,
      },
    });
  }

  private reachable(): void {
    this.failures = 0;
    this.nextTryAt = 0;
    if (this.unreachableSince === null) return;
    this.unreachableSince = null;
    this.warned.delete('down');
    this.ctx.warn(`team store ${this.ctx.store.label} is reachable again; approvals are relayed`);
  }

  private unreachable(err: unknown): void {
    const now = Date.now();
    this.unreachableSince ??= now;
    this.warnOnce(
      'down',
      `team store ${this.ctx.store.label} is unreachable (${err instanceof Error ? err.message : String(err)}); approvals wait in this machine's queue and are forwarded when it is back`,
    );
    if (now - this.unreachableSince >= this.graceMs) this.denyFailClosed(now - this.unreachableSince);
  }

  /** Denies, on this machine, the open requests of fail-closed sessions: nobody on the team can see them. */
  private denyFailClosed(downMs: number): void {
    for (const p of this.queue.list()) {
      if (postureOf(this.ctx.projectState, p.session_id) !== 'fail-closed') continue;
      const reason = `the team store has been unreachable for ${Math.round(downMs / 1000)} s and the session is fail-closed, so no one on the team could answer`;
      const r = this.queue.resolve(p.id, { decision: 'reject', reason, principal: STORE_UNREACHABLE_PRINCIPAL });
      if (r.ok) this.ctx.warn(`approval ${p.id} denied on this machine: ${reason}`);
    }
  }

  private warnOnce(key: string, message: string): void {
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.ctx.warn(message);
  }
}
