// The team link's audit part: forwards this project's local audit log into the team log, in
// order, from where the store says this machine left off. The local log is the spool: while the
// database is down nothing is lost, and when it is back everything follows with the chain intact.
import { join } from 'node:path';
import { AuditLog, LOG_FILE } from '../audit/log.js';
import { GENESIS_HASH } from '../audit/record.js';
import { loadOrCreateKey, type SigningKey } from '../keys.js';
import type { LinkContext, LinkPart, StartPart } from './link-part.js';
import { LocalLogReader } from './local-log-reader.js';
import { appendTeamEvents, OriginGapError, originHost, type AppendOptions, type TeamOrigin } from './pg-audit-append.js';
import { ForwardLoop } from './forward-loop.js';
import { isoTime } from '../../core/iso-time.js';

/** How often the local log is looked at: a hook's event reaches the team log within about this. */
const TICK_MS = 250;
/** Events per transaction: large enough to amortise the head lock, small enough to keep it brief. */
const BATCH_EVENTS = 500;

/** Options of {@link startAuditForwardingWith} (tests and the bench tune them). */
export interface ForwardOptions {
  tickMs?: number;
  batchEvents?: number;
  checkpoint?: Pick<AppendOptions, 'checkpointEvery' | 'checkpointMs'>;
}

class AuditForwarder implements LinkPart {
  private readonly reader: LocalLogReader;
  private readonly origin: TeamOrigin;
  private readonly key: SigningKey;
  private synced = false;
  private halt: { seq: number; reason: string; recorded: boolean } | null = null;
  /** Whether the team tree may have events past its last checkpoint that this link put there. */
  private uncovered = false;
  private readonly loop: ForwardLoop;

  constructor(
    private readonly ctx: LinkContext,
    private readonly opts: ForwardOptions,
  ) {
    this.reader = new LocalLogReader(join(ctx.projectState, 'audit', LOG_FILE));
    this.origin = { machine: ctx.machine, project: ctx.projectKey };
    this.key = loadOrCreateKey(ctx.projectState);
    // One pass at a time, every tick and on flush (which also signs a checkpoint); backs off while the store is down.
    this.loop = new ForwardLoop({ pass: (flush) => this.pass(flush), warn: ctx.warn, what: 'audit events', label: ctx.store.label, pollMs: opts.tickMs ?? TICK_MS });
  }

  private get batch(): number {
    return this.opts.batchEvents ?? BATCH_EVENTS;
  }

  private append(events: Parameters<typeof appendTeamEvents>[2], checkpoint: AppendOptions['checkpoint']) {
    return appendTeamEvents(this.ctx.store, this.origin, events, this.key, { ...this.opts.checkpoint, checkpoint });
  }

  /** Finds where the store left off for this machine and project, checking the local log up to there. */
  private async sync(): Promise<void> {
    const r = await this.ctx.store.pool.query<{ origin_seq: string; origin_hash: string }>(
      `SELECT origin_seq, origin_hash FROM gh_audit_events WHERE machine_id = $1 AND project_key = $2 ORDER BY origin_seq DESC LIMIT 1`,
      [this.origin.machine.id, this.origin.project],
    );
    this.reader.advance({ offset: 0, nextSeq: 0, prevHash: GENESIS_HASH });
    const row = r.rows[0];
    // Straight past what the store holds, where the log's index says it ends and the line there is
    // the very event forwarded last; else (no index, or one that does not hold) read up to it.
    if (row !== undefined && this.seekPastForwarded(Number(row.origin_seq), row.origin_hash)) {
      this.synced = true;
      return;
    }
    if (row !== undefined) {
      const target = Number(row.origin_seq);
      let last: string | null = null;
      while (this.reader.position.nextSeq <= target) {
        const b = this.reader.read(Math.min(this.batch * 8, target + 1 - this.reader.position.nextSeq));
        if (b.problem !== null) return this.haltAt(b.problem.seq, `${b.problem.reason} (the line was already forwarded: the local log was changed afterwards)`);
        if (b.events.length === 0) {
          return this.haltAt(
            this.reader.position.nextSeq,
            `the local log ends at seq ${this.reader.position.nextSeq - 1} but the team store holds this project's events up to seq ${target}: the local log was truncated or replaced`,
          );
        }
        this.reader.advance(b.end);
        last = b.events.at(-1)!.hash;
      }
      if (last !== row.origin_hash) return this.haltAt(target, `local event seq ${target} is not the one forwarded to the team store: the local log was rewritten after it was forwarded`);
    }
    this.synced = true;
  }

  private seekPastForwarded(seq: number, hash: string): boolean {
    let end: number | null;
    try {
      end = new AuditLog(join(this.ctx.projectState, 'audit')).lineEndOf(seq);
    } catch {
      return false;
    }
    return end !== null && this.reader.seekPast(seq, hash, end);
  }

  private haltAt(seq: number, reason: string): void {
    this.halt = { seq, reason, recorded: false };
    this.ctx.warn(`team audit: stopped forwarding ${this.reader.file} at local seq ${seq}: ${reason}. Nothing after it reaches the team log; run \`gatehouse audit verify\` on this machine.`);
  }

  private async recordHalt(): Promise<void> {
    const h = this.halt;
    if (h === null || h.recorded) return;
    await this.ctx.store.pool.query(
      `INSERT INTO gh_audit_halts (machine_id, project_key, host, origin_seq, reason, time) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (machine_id, project_key) DO UPDATE SET host = EXCLUDED.host, origin_seq = EXCLUDED.origin_seq, reason = EXCLUDED.reason, time = EXCLUDED.time`,
      [this.origin.machine.id, this.origin.project, originHost(this.origin.machine.host), h.seq, h.reason, isoTime()],
    );
    h.recorded = true;
  }

  /** One round: forward everything waiting, batch by batch; `force` signs a checkpoint of what it left. */
  private async pass(force: boolean): Promise<void> {
    if (this.halt === null && !this.synced) await this.sync();
    if (this.halt !== null) return this.recordHalt();
    for (;;) {
      const b = this.reader.read(this.batch);
      if (b.shrunk) {
        this.synced = false;
        await this.sync();
        if (this.halt !== null) return this.recordHalt();
        continue;
      }
      if (b.events.length > 0) {
        try {
          const out = await this.append(b.events, 'due');
          this.uncovered = !out.checkpointed;
        } catch (err) {
          // The store holds something else for this origin: find out what on the next round.
          if (err instanceof OriginGapError) this.synced = false;
          throw err;
        }
        this.reader.advance(b.end);
      }
      if (b.problem !== null) {
        this.haltAt(b.problem.seq, b.problem.reason);
        return this.recordHalt();
      }
      if (b.events.length < this.batch) break;
    }
    if (force || this.uncovered) {
      const out = await this.append([], force ? 'force' : 'due');
      if (out.checkpointed || force) this.uncovered = false;
    }
  }

  start(): void {
    this.loop.start();
  }

  flush(): Promise<void> {
    return this.loop.flush();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }
}

/** {@link startAuditForwarding} with its timings and batch size chosen by the caller. */
export function startAuditForwardingWith(opts: ForwardOptions): StartPart {
  return (ctx) => {
    const f = new AuditForwarder(ctx, opts);
    f.start();
    return Promise.resolve(f);
  };
}

/**
 * Starts forwarding `<projectState>/audit/log.jsonl` into the team log: every TICK_MS and on
 * flush(), batch by batch, checkpoints signed with this project's own key. Never throws into
 * the host: store outages are retried with backoff and reported once through `warn`.
 * @example const part = await startAuditForwarding(ctx); … await part.flush(); await part.stop();
 */
export const startAuditForwarding: StartPart = startAuditForwardingWith({});
