// Tells people when a call waits for one of them: watches the approval queue, claims each new
// request once across every process of the project, gathers a burst into one message per
// channel, and sends it. Nothing here can block, change or delay a decision.
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { notifyMessage, type NotifyItem } from '../../core/notify/message.js';
import type { ApprovalQueue } from '../approvals/queue.js';
import { createExclusive, unlinkQuiet } from '../approvals/files.js';
import { isApprovalId, type PendingApproval } from '../approvals/record.js';
import type { Channel } from './channels.js';
import { deliver, type DeliverOptions, type DeliveryOutcome } from './deliver.js';

/** What a notifier needs. */
export interface NotifierOptions {
  queue: ApprovalQueue;
  /** The project state folder: its `approvals/notified/` holds one claim per request told. */
  projectState: string;
  /** The project's name as people know it (its folder name). */
  project: string;
  channels: readonly Channel[];
  /** After a message, how long later calls are gathered before the next one (the first after a quiet spell goes at once). */
  batchMs: number;
  /** A single-use page for one call on one channel, or null (no public URL). */
  linkFor?: (approval: PendingApproval, channel: Channel) => string | null;
  /** Where a tap on a batch goes, or null. */
  dashboardUrl?: string | null;
  /** Where delivery failures (and nothing secret) are reported. */
  log: (line: string) => void;
  deliverOptions?: DeliverOptions;
}

/** One delivery's outcome, kept for `gatehouse serve`'s status and for tests. */
export interface DeliveryRecord {
  channel: string;
  ids: string[];
  outcome: DeliveryOutcome;
}

/**
 * Watches the queue and notifies. A request is claimed by exclusive create of
 * `approvals/notified/<id>`, so `gatehouse serve` and `gatehouse run` of one project never
 * both tell about it, and a restart does not tell again.
 * @example const n = new Notifier({ queue, projectState, project: 'shop', channels, batchMs: 1000, log: console.error }); n.start(); … n.close()
 */
export class Notifier {
  private readonly dir: string;
  private batch: PendingApproval[] = [];
  /** Open requests this process has tried to claim (won or lost). */
  private readonly tried = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private watcher: { close(): void } | null = null;
  private readonly sending = new Set<Promise<void>>();
  private closed = false;
  /** When the last message went out (monotonic ms): the next one waits out the batch window. */
  private lastSentAt = -Infinity;
  /** Aborted at close: retries in flight stop. */
  private readonly stopping = new AbortController();
  /** Every delivery made, oldest first (bounded). */
  readonly deliveries: DeliveryRecord[] = [];

  constructor(private readonly opts: NotifierOptions) {
    this.dir = join(opts.projectState, 'approvals', 'notified');
  }

  /** Starts watching; requests already waiting and never told about are told now. */
  start(): void {
    if (this.opts.channels.length === 0 || this.watcher !== null) return;
    try {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    } catch (err) {
      // The state folder is the agent's to break outside a sandbox: nobody is told, the queue still works.
      this.opts.log(`notify: notifications are off, ${this.dir} cannot be made: ${(err as Error).message}`);
      return;
    }
    this.watcher = this.opts.queue.watch(() => this.scan());
    this.scan();
  }

  /**
   * Stops watching; a batch still gathering is sent first. Deliveries in flight get
   * {@link CLOSE_GRACE_MS} to finish, then their retries are cut, so stopping never waits on a
   * receiver that is down.
   */
  async close(): Promise<void> {
    this.closed = true;
    this.watcher?.close();
    this.watcher = null;
    this.flush();
    let grace: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all([...this.sending]), new Promise((r) => (grace = setTimeout(r, CLOSE_GRACE_MS)))]);
    clearTimeout(grace);
    this.stopping.abort();
    await Promise.all([...this.sending]);
  }

  /** Claims every open request not yet claimed, and forgets claims of requests that are gone. */
  private scan(): void {
    if (this.closed) return;
    let open: PendingApproval[];
    try {
      open = this.opts.queue.list();
    } catch (err) {
      this.opts.log(`notify: cannot read the approval queue: ${(err as Error).message}`);
      return;
    }
    for (const p of open) {
      // Each request is tried once per process: a claim is a file write, and the queue changes often.
      if (this.tried.has(p.id)) continue;
      this.tried.add(p.id);
      if (this.claim(p.id)) this.batch.push(p);
    }
    const live = new Set(open.map((p) => p.id));
    for (const id of this.tried) if (!live.has(id)) this.tried.delete(id);
    this.forgetGone(live);
    if (this.batch.length > 0 && this.timer === null) {
      // The first call after a quiet spell is told at once; calls after it are gathered until the window ends.
      const wait = Math.max(LEAD_GATHER_MS, this.lastSentAt + this.opts.batchMs - performance.now());
      this.timer = setTimeout(() => this.flush(), wait);
      this.timer.unref();
    }
  }

  private claim(id: string): boolean {
    try {
      return createExclusive(join(this.dir, id), '');
    } catch (err) {
      this.opts.log(`notify: cannot record that ${id} was told: ${(err as Error).message}`);
      return false;
    }
  }

  /** Claims of requests that are answered, or gone altogether (pruned), are removed: the queue keeps the history. */
  private forgetGone(live: ReadonlySet<string>): void {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return;
    }
    for (const name of names) {
      if (!isApprovalId(name) || live.has(name)) continue;
      const state = this.opts.queue.get(name);
      if (state.resolution !== null || state.pending === null) unlinkQuiet(join(this.dir, name));
    }
  }

  /** Sends the gathered batch on every channel, leaving out calls answered meanwhile. */
  private flush(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.batch.filter((p) => this.stillOpen(p.id));
    this.batch = [];
    if (batch.length === 0) return;
    this.lastSentAt = performance.now();
    for (const channel of this.opts.channels) {
      const items: NotifyItem[] = batch.map((p) => {
        const link = this.opts.linkFor?.(p, channel) ?? null;
        return { id: p.id, session_id: p.session_id, agent: p.agent, tool: p.tool, summary: p.summary, expires_at: p.expires_at, ...(link === null ? {} : { link }) };
      });
      const message = notifyMessage(this.opts.project, items, this.opts.dashboardUrl ?? null);
      const sent = deliver(channel, message, { ...this.opts.deliverOptions, signal: this.stopping.signal }).then((outcome) => {
        this.record({ channel: channel.name, ids: items.map((i) => i.id), outcome });
        if (!outcome.ok) this.opts.log(`notify: ${channel.name} was not told about ${items.map((i) => i.id).join(', ')} after ${outcome.attempts} attempt(s): ${outcome.reason}`);
      });
      this.sending.add(sent);
      void sent.finally(() => this.sending.delete(sent));
    }
  }

  private stillOpen(id: string): boolean {
    try {
      return this.opts.queue.get(id).resolution === null;
    } catch {
      return false;
    }
  }

  private record(r: DeliveryRecord): void {
    this.deliveries.push(r);
    // The last few hundred are plenty for a status page; the log has the failures.
    if (this.deliveries.length > MAX_KEPT_DELIVERIES) this.deliveries.shift();
  }
}

/**
 * How long the first call after a quiet spell waits for company: calls filed together (one
 * turn's burst) land within a few milliseconds of each other and become one message.
 */
const LEAD_GATHER_MS = 20;

/** How long close waits for deliveries in flight before it cuts their retries. */
const CLOSE_GRACE_MS = 2_000;

/** Deliveries kept in memory for status. */
const MAX_KEPT_DELIVERIES = 200;
