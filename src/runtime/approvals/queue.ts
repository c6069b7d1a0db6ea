// The one approval queue every surface shares (hook, HTTP, CLI, TUI): requests wait in
// pending/, the first answer to be created in resolved/ wins (and is recorded in the audit
// log by whoever wrote it), and the waiting hook sees it.
import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describeDecision, type AlwaysTarget } from '../../core/approvals/always-scope.js';
import { checkPrincipal, type Principal } from '../../core/approvals/principal.js';
import { AuditLog } from '../audit/log.js';
import { watchDirs } from './dir-watch.js';
import { approvalPaths, createExclusive, ensureDirs, readOrNull, recordFile, recordIds, removeStaleTemps, unlinkQuiet, type ApprovalPaths } from './files.js';
import { isProcessAlive } from '../process-alive.js';
import { answerFor } from './answer.js';
import { expiryDenial, settle } from './settle.js';
import { principalFields, SWEEPER_PRINCIPAL, TTL_EXPIRY_PRINCIPAL } from './system-principals.js';
import { waitUntil } from './wait.js';
import { beat, deadWaiterReason, doorbellFile, keepBeating, newWaiterId, removeDeadHeartbeats } from './waiter.js';
import {
  APPROVAL_DECISIONS,
  clip,
  isApprovalId,
  MAX_ALWAYS_PATHS,
  MAX_LABEL_CHARS,
  MAX_REASON_CHARS,
  MAX_SUMMARY_CHARS,
  MAX_WHY_CHARS,
  newApprovalId,
  newNonce,
  nonceMatches,
  parsePending,
  parseResolution,
  type ApprovalState,
  type EnqueueInput,
  type PendingApproval,
  type Resolution,
  type ResolveError,
  type ResolveInput,
  type ResolveResult,
} from './record.js';
import { isoTime } from '../../core/iso-time.js';

/** Poll period of {@link ApprovalQueue.watch}: a person watching a panel does not notice a quarter second, and two readdirs four times a second cost nothing. */
const WATCH_POLL_MS = 250;
/** Longest TTL: a hook blocked for a day is already absurd, and it keeps expiry timers far below setTimeout's ~24.8-day limit. */
const MAX_TTL_SECONDS = 24 * 60 * 60;
/** Resolved requests older than this are removed by sweep(): the audit chain keeps the decision, the queue only serves recent history. */
export const RESOLVED_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
// A record write takes milliseconds; a temp file this old was left by a killed writer.
const STALE_TEMP_MS = 60_000;
// New ids carry 48 random bits, so a second collision in a row means something is broken.
const ID_ATTEMPTS = 3;

/**
 * Auth kinds that arrive over HTTP or WebSocket and must echo the request's nonce: a stale
 * browser tab must not answer a request it never displayed. CLI and TUI callers
 * (`local-shell`) act on what they show and pass no nonce.
 */
export const NONCE_REQUIRED_AUTH: readonly Principal['auth'][] = ['scoped-token', 'access-token', 'link'];

/** Construction options beyond the clock. */
export interface ApprovalQueueOptions {
  /** Use fs.watch besides polling (default true; false exercises the polling fallback). */
  fsWatch?: boolean;
}

type ReadResult<T> = { value: T | null; problem: string | null };

/** A target too large to store is stored as null: "always" then adds no rule, and every surface says so. */
function boundedTarget(t: AlwaysTarget | null): AlwaysTarget | null {
  if (t === null || t.paths.length > MAX_ALWAYS_PATHS || t.paths.some((p) => p.length > MAX_SUMMARY_CHARS)) return null;
  return { tool: clip(t.tool, MAX_LABEL_CHARS), on: t.on, paths: [...t.paths] };
}

function refuse(code: ResolveError['code'], message: string): ResolveResult {
  return { ok: false, error: { code, message } };
}

/**
 * The approval queue of one project state dir. Every method is safe against other
 * processes using the same folder at the same time.
 * @example
 * const q = new ApprovalQueue(projectState);
 * const p = q.enqueue({ session_id: 's1', agent: 'claude', tool: 'Bash', summary: 'rm -rf build', ttlSeconds: 120 });
 * const r = await q.waitFor(p.id, {}); // another process: q.resolve(p.id, { decision: 'allow', principal })
 */
export class ApprovalQueue {
  private readonly paths: ApprovalPaths;
  private readonly fsWatch: boolean;
  /** The project's audit log (`<projectState>/audit`), where every resolution is recorded. */
  private readonly audit: AuditLog;

  constructor(
    projectState: string,
    private readonly now: () => Date = () => new Date(),
    opts: ApprovalQueueOptions = {},
  ) {
    this.paths = approvalPaths(projectState);
    this.fsWatch = opts.fsWatch ?? true;
    this.audit = new AuditLog(join(projectState, 'audit'));
  }

  /** Files a new request waited on by this process; long text is cut, never refused (a hook must not fail here). */
  enqueue(input: EnqueueInput): PendingApproval {
    const ttl = input.ttlSeconds;
    if (!Number.isFinite(ttl) || ttl <= 0 || ttl > MAX_TTL_SECONDS) throw new Error(`approval ttlSeconds must be in (0, ${MAX_TTL_SECONDS}], got ${ttl}`);
    ensureDirs(this.paths);
    const created = this.now();
    // The heartbeat exists before the request does, so the sweeper never sees a request without one.
    const waiter = newWaiterId();
    beat(this.paths, waiter);
    for (let attempt = 0; attempt < ID_ATTEMPTS; attempt++) {
      const record: PendingApproval = {
        id: newApprovalId(created),
        nonce: newNonce(),
        session_id: clip(input.session_id, MAX_LABEL_CHARS),
        agent: clip(input.agent, MAX_LABEL_CHARS),
        tool: clip(input.tool, MAX_LABEL_CHARS),
        summary: clip(input.summary, MAX_SUMMARY_CHARS),
        ...(input.why === undefined ? {} : { why: clip(input.why, MAX_WHY_CHARS) }),
        created_at: isoTime(created),
        expires_at: isoTime(created.getTime() + Math.round(ttl * 1000)),
        pid: process.pid,
        waiter,
        ...(input.always === undefined ? {} : { always: boundedTarget(input.always) }),
        ...(input.detail === undefined ? {} : { detail: input.detail }),
      };
      if (createExclusive(recordFile(this.paths.pending, record.id), `${JSON.stringify(record, null, 2)}\n`)) return record;
    }
    throw new Error(`could not create a unique approval id in ${this.paths.pending} after ${ID_ATTEMPTS} tries`);
  }

  /** The request and its resolution, each null when missing; corrupt records are named in `problem`. */
  get(id: string): ApprovalState {
    if (!isApprovalId(id)) return { pending: null, resolution: null, problem: { code: 'bad_id', message: badIdMessage(id) } };
    const pending = this.readPending(id);
    const resolution = this.readResolution(id);
    const problem =
      pending.problem !== null
        ? { code: 'corrupt_pending' as const, message: pending.problem }
        : resolution.problem !== null
          ? { code: 'corrupt_resolution' as const, message: resolution.problem }
          : null;
    return { pending: pending.value, resolution: resolution.value, problem };
  }

  /** Unresolved, unexpired requests, oldest first; corrupt records are skipped. */
  list(filter: { session?: string } = {}): PendingApproval[] {
    const nowMs = this.now().getTime();
    const out: PendingApproval[] = [];
    for (const id of recordIds(this.paths.pending)) {
      if (existsSync(recordFile(this.paths.resolved, id))) continue;
      const p = this.readPending(id).value;
      if (p === null || Date.parse(p.expires_at) <= nowMs) continue;
      if (filter.session !== undefined && p.session_id !== filter.session) continue;
      out.push(p);
    }
    return out.sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at) || (a.id < b.id ? -1 : 1));
  }

  /** The newest open request (what `gatehouse approve` answers without an id), or null. */
  latest(): PendingApproval | null {
    return this.list().at(-1) ?? null;
  }

  /**
   * Answers request `id`; exactly one answer per request is ever accepted, across processes,
   * and it is recorded as one `human_approval_decision` audit event with the principal as
   * actor. Past its expiry a request can only be denied by the queue, so a late answer is refused.
   */
  resolve(id: string, r: ResolveInput): ResolveResult {
    if (!isApprovalId(id)) return refuse('bad_id', badIdMessage(id));
    if (!APPROVAL_DECISIONS.includes(r.decision)) return refuse('bad_decision', `decision must be one of ${APPROVAL_DECISIONS.join(', ')}, got ${JSON.stringify(r.decision)}`);
    const reason = r.reason ?? null;
    if (reason !== null && typeof reason !== 'string') return refuse('bad_decision', 'reason must be text or null');
    const principal = checkPrincipal(r.principal);
    if (!principal.ok) return refuse('bad_principal', `the resolver cannot be named: ${principal.reason}`);
    const pending = this.readPending(id);
    if (pending.value === null) {
      return refuse('not_found', pending.problem ?? `no approval ${id} in this project; run \`gatehouse approve --list\` to see open requests`);
    }
    // Before anything that reveals state: a caller without the nonce learns nothing more.
    if (r.nonce !== undefined || NONCE_REQUIRED_AUTH.includes(principal.value.auth)) {
      if (!nonceMatches(r.nonce, pending.value.nonce)) return refuse('nonce_mismatch', `the nonce does not match approval ${id}; reload the request and answer what it shows now`);
    }
    const now = this.now();
    const expired = now.getTime() >= Date.parse(pending.value.expires_at);
    const mine: Resolution = expired
      ? expiryDenial(pending.value, TTL_EXPIRY_PRINCIPAL, now)
      : { id, decision: r.decision, reason: reason === null ? null : clip(reason, MAX_REASON_CHARS), principal: principalFields(principal.value), resolved_at: isoTime(now) };
    const settled = settle(this.paths, this.audit, pending.value, mine);
    if (settled.kind === 'not_recorded') {
      return refuse(
        'not_recorded',
        `the audit log could not record this answer (${settled.reason}), so approval ${id} is still open; run \`gatehouse audit verify\`, fix what it reports, and answer again`,
      );
    }
    if (settled.kind === 'created' && !expired) return { ok: true, value: mine };
    const winner = settled.kind === 'created' ? settled.resolution : settled.winner;
    const how = winner.expired ? `timed out at ${pending.value.expires_at}` : `answered ${describeDecision(winner.decision)} by ${winner.principal.id} at ${winner.resolved_at}`;
    return refuse('already_resolved', `approval ${id} was already resolved (${how}); nothing more to do`);
  }

  /**
   * Resolves with the answer to a request once any process gives one, or with the queue's own
   * denial at its expiry (which it records, unless an answer got there first). The filer passes
   * the record `enqueue` returned: its expiry and waiter are then its own, not what the file says
   * now (outside a sandbox the agent can rewrite it). Given an id, the record is read back.
   * Rejects only if an id is not a readable request, on I/O errors, or when `signal` aborts.
   */
  async waitFor(filed: PendingApproval | string, opts: { signal?: AbortSignal } = {}): Promise<Resolution> {
    let request: PendingApproval;
    if (typeof filed === 'string') {
      if (!isApprovalId(filed)) throw new Error(badIdMessage(filed));
      const pending = this.readPending(filed);
      if (pending.value === null) throw new Error(`cannot wait for approval ${filed}: ${pending.problem ?? 'no such request'}`);
      request = pending.value;
    } else {
      request = filed;
    }
    const id = request.id;
    const stopBeating = request.waiter === undefined ? () => {} : keepBeating(this.paths, request.waiter);
    try {
      // The wait's own doorbell, which whoever answers rings (settle.ts): every answer goes into
      // one folder, and a watch there woke every waiting hook for each. A request filed without a
      // waiter (an older record) watches that folder for its own answer's name.
      const watched =
        request.waiter === undefined
          ? { dirs: [this.paths.resolved], names: (name: string) => name === basename(recordFile(this.paths.resolved, id)) }
          : { dirs: [doorbellFile(this.paths, request.waiter)] };
      return await waitUntil(() => this.answerOrExpiry(request), {
        ...watched,
        deadlineMs: Date.parse(request.expires_at),
        nowMs: () => this.now().getTime(),
        fsWatch: this.fsWatch,
        what: `approval ${id}`,
        ...(opts.signal ? { signal: opts.signal } : {}),
      });
    } finally {
      stopBeating();
    }
  }

  /**
   * Denies requests nobody waits on any more (the waiting process is gone or a zombie, or
   * the waiter's heartbeat stopped) and expired ones nobody answered; prunes old history.
   * Returns how many it denied.
   */
  sweep(): number {
    const now = this.now();
    let denied = 0;
    for (const id of recordIds(this.paths.pending)) {
      if (existsSync(recordFile(this.paths.resolved, id))) continue;
      const p = this.readPending(id).value;
      if (p === null) continue;
      let denial: Resolution | null = null;
      if (now.getTime() >= Date.parse(p.expires_at)) denial = expiryDenial(p, SWEEPER_PRINCIPAL, now);
      else {
        // Heartbeats are on the real clock (file times), whatever clock this queue was given.
        const dead = !isProcessAlive(p.pid)
          ? `the waiting process (pid ${p.pid}) is gone, so nobody can act on an answer`
          : p.waiter === undefined
            ? null
            : deadWaiterReason(this.paths, p.waiter, Date.now());
        if (dead !== null) denial = { id, decision: 'reject', reason: dead, principal: SWEEPER_PRINCIPAL, resolved_at: isoTime(now) };
      }
      if (denial !== null && settle(this.paths, this.audit, p, denial).kind === 'created') denied++;
    }
    this.prune(now.getTime());
    // File times are on the real clock, whatever clock this queue was given.
    removeStaleTemps(this.paths.pending, STALE_TEMP_MS, Date.now());
    removeStaleTemps(this.paths.resolved, STALE_TEMP_MS, Date.now());
    // After the loop above: a stopped heartbeat has denied its request by now.
    removeDeadHeartbeats(this.paths, Date.now());
    return denied;
  }

  /** Calls `onChange` whenever a request is filed, answered or pruned, from any process. */
  watch(onChange: () => void): { close(): void } {
    ensureDirs(this.paths);
    const snapshot = (): string => `${recordIds(this.paths.pending).join(',')}|${recordIds(this.paths.resolved).join(',')}`;
    let last = snapshot();
    const w = watchDirs(
      [this.paths.pending, this.paths.resolved],
      () => {
        const next = snapshot();
        if (next === last) return;
        last = next;
        onChange();
      },
      { pollMs: WATCH_POLL_MS, fsWatch: this.fsWatch },
    );
    return { close: () => w.close() };
  }

  /** The answer on disk (if the audit log vouches for it), or the queue's expiry denial once `request` has expired, else null. */
  private answerOrExpiry(request: PendingApproval): Resolution | null {
    return answerFor(this.paths, this.audit, request, this.now());
  }

  /** Removes answered requests older than the retention; the request goes first, so it never looks open again. */
  private prune(nowMs: number): void {
    for (const id of recordIds(this.paths.resolved)) {
      const r = this.readResolution(id).value;
      if (r === null || nowMs - Date.parse(r.resolved_at) < RESOLVED_RETENTION_MS) continue;
      unlinkQuiet(recordFile(this.paths.pending, id));
      unlinkQuiet(recordFile(this.paths.resolved, id));
    }
  }

  private readPending(id: string): ReadResult<PendingApproval> {
    const text = readOrNull(recordFile(this.paths.pending, id));
    if (text === null) return { value: null, problem: null };
    const parsed = parsePending(text, id);
    return parsed.ok ? { value: parsed.value, problem: null } : { value: null, problem: parsed.reason };
  }

  private readResolution(id: string): ReadResult<Resolution> {
    const text = readOrNull(recordFile(this.paths.resolved, id));
    if (text === null) return { value: null, problem: null };
    const parsed = parseResolution(text, id);
    return parsed.ok ? { value: parsed.value, problem: null } : { value: null, problem: parsed.reason };
  }
}

function badIdMessage(id: unknown): string {
  return `${JSON.stringify(id)} is not an approval id (they look like ap-<time>-<hex>); run \`gatehouse approve --list\` to see open requests`;
}
