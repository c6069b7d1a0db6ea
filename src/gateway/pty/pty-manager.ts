// Owns every PTY session of one server: the live-session cap with FIFO eviction, the idle
// TTL, one output and one exit stream for all sessions, and a dispose that reaps them all.
import { randomUUID } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { fail, ok, type Result } from '../../core/result.js';
import { redactText } from '../../core/redact-argv.js';
import { checkGeometry, prepareLaunch } from './launch.js';
import { Listeners } from './listeners.js';
import { type SessionEvents, PtySession } from './pty-session.js';
import { DEFAULT_SCROLLBACK_LINES } from './screen.js';
import type { Disposable, ExitInfo, ExitListener, OutputListener, PtyInfo, PtyManagerOptions, PtySnapshot, SpawnSpec } from './types.js';

/** The error text for an id the manager does not know (the wire protocol promises these words). */
export const NO_SUCH_SESSION = 'no such session';
/** Live sessions at once: every one is a process tree plus a screen; a person watches a handful. */
const DEFAULT_MAX_SESSIONS = 64;
/** A session nobody has typed into or heard from for this long is assumed abandoned. */
const DEFAULT_IDLE_TTL_MS = 10 * 60_000;
/** Idle sweep period: 5% of the default TTL, so a session outlives its TTL by at most that. */
const DEFAULT_SWEEP_INTERVAL_MS = 30_000;
/**
 * Exited sessions kept so a client can still read how one ended and its last screen;
 * beyond this the oldest are forgotten, so exited screens cannot pile up in memory.
 */
const MAX_EXITED_KEPT = 16;
/** How long dispose waits for children to die: past the SIGHUP to SIGKILL grace (3 s), with margin. */
const DISPOSE_DEADLINE_MS = 10_000;

/** Every PTY session of one server; see the module note. */
export class PtyManager {
  /** Live and recently exited sessions, oldest first (Map keeps insertion order: that is the FIFO). */
  private readonly sessions = new Map<string, PtySession>();
  /** Sessions evicted at the cap: out of the table at once, awaited until their exit is reported. */
  private readonly evicted = new Set<PtySession>();
  private readonly outputs = new Listeners<[string, number, Buffer]>();
  private readonly exits = new Listeners<[string, ExitInfo]>();
  private readonly root: string;
  private readonly maxSessions: number;
  private readonly idleTtlMs: number;
  private readonly scrollback: number;
  private readonly now: () => number;
  private readonly sweepTimer: NodeJS.Timeout;
  private disposing: Promise<void> | null = null;
  private readonly events: SessionEvents = {
    output: (s, seq, data) => this.outputs.fire(s.id, seq, data),
    exit: (s, info) => {
      if (this.evicted.delete(s)) s.dispose();
      this.exits.fire(s.id, info);
      this.forgetOldExited();
    },
  };

  constructor(opts: PtyManagerOptions) {
    this.maxSessions = positiveInteger('maxSessions', opts.maxSessions ?? DEFAULT_MAX_SESSIONS);
    this.idleTtlMs = positiveInteger('idleTtlMs', opts.idleTtlMs ?? DEFAULT_IDLE_TTL_MS);
    this.scrollback = positiveInteger('scrollbackLines', opts.scrollbackLines ?? DEFAULT_SCROLLBACK_LINES);
    const sweepMs = positiveInteger('sweepIntervalMs', opts.sweepIntervalMs ?? DEFAULT_SWEEP_INTERVAL_MS);
    this.now = opts.now ?? Date.now;
    this.root = realpathSync.native(resolve(opts.projectRoot));
    this.sweepTimer = setInterval(() => this.sweepIdle(), sweepMs);
    this.sweepTimer.unref();
  }

  /**
   * Starts a process in a new PTY. At the cap, the oldest live session is evicted (killed,
   * its exit reported with reason `evicted`) once the new one has started.
   * @example manager.spawn({ cwd: root, command: '/bin/sh', args: ['-c', 'echo hi'] })
   */
  spawn(spec: SpawnSpec, label?: string): Result<PtyInfo> {
    if (this.disposing !== null) return fail('the PTY manager is shutting down: no new sessions');
    // A refusal quotes the command, which may carry `KEY=value` words: only their names go back.
    const launch = prepareLaunch(spec, this.root);
    if (!launch.ok) return fail(redactText(launch.reason));
    const started = PtySession.start(`pty-${randomUUID()}`, launch.value, this.scrollback, this.events, this.now, label);
    if (!started.ok) return fail(redactText(started.reason));
    // Synchronous from the count to the insert, so concurrent callers can never overshoot the cap.
    this.evictDownTo(this.maxSessions - 1);
    this.sessions.set(started.value.id, started.value);
    return ok(started.value.info());
  }

  /** Live and recently exited sessions, oldest first. */
  list(): PtyInfo[] {
    return [...this.sessions.values()].map((s) => s.info());
  }

  /** One session, or null for an unknown (or evicted, or forgotten) id. */
  get(id: string): PtyInfo | null {
    return this.sessions.get(id)?.info() ?? null;
  }

  /** Sends input to a live session; strings are sent as UTF-8. */
  write(id: string, data: string | Buffer): Result<void> {
    const s = this.find(id);
    return s.ok ? s.value.write(data) : s;
  }

  /** Resizes a live session within 1..MAX_GEOMETRY; the child sees it (SIGWINCH, `stty size`). */
  resize(id: string, cols: number, rows: number): Result<void> {
    const s = this.find(id);
    if (!s.ok) return s;
    const geometry = checkGeometry(cols, rows);
    return geometry.ok ? s.value.resize(cols, rows) : geometry;
  }

  /** Hangs up a live session (reason `closed`); on an exited one, forgets it and frees its screen. */
  kill(id: string, reason: 'closed' = 'closed'): Result<void> {
    const s = this.find(id);
    if (!s.ok) return s;
    if (s.value.isExited) this.forget(s.value);
    else s.value.kill(reason);
    return ok(undefined);
  }

  /** Stops reading the session's output until `resume`; the child blocks once the kernel buffer fills. */
  pause(id: string): void {
    this.sessions.get(id)?.pause();
  }

  /** Undoes `pause`. */
  resume(id: string): void {
    this.sessions.get(id)?.resume();
  }

  /**
   * Calls `use` with the server-held screen once it has caught up with every chunk sent;
   * its `seq` is the last chunk it includes, and no later chunk is sent before `use` returns.
   */
  async withSnapshot<T>(id: string, use: (snap: PtySnapshot) => T): Promise<Result<T>> {
    const s = this.find(id);
    return s.ok ? s.value.withSnapshot(use) : s;
  }

  /** The server-held screen, caught up; see `withSnapshot`. */
  snapshot(id: string): Promise<Result<PtySnapshot>> {
    return this.withSnapshot(id, (snap) => snap);
  }

  /** Every output chunk of every session, as it is read (coalesced per event-loop turn). */
  onOutput(listener: OutputListener): Disposable {
    return this.outputs.add(listener);
  }

  /** Each session's end, exactly once, after its last output chunk. */
  onExit(listener: ExitListener): Disposable {
    return this.exits.add(listener);
  }

  /** Closes live sessions idle past the TTL (reason `idle`) and forgets exited ones as old; returns how many it closed. */
  sweepIdle(): number {
    const t = this.now();
    let closed = 0;
    for (const s of [...this.sessions.values()]) {
      if (t - s.lastActivity <= this.idleTtlMs) continue;
      if (s.isExited) this.forget(s);
      else if (!s.isEnding) {
        s.kill('idle');
        closed++;
      }
    }
    return closed;
  }

  /** Kills every session, waits for each to be reaped (or the deadline), frees screens and timers. */
  dispose(): Promise<void> {
    this.disposing ??= this.shutdown();
    return this.disposing;
  }

  private async shutdown(): Promise<void> {
    clearInterval(this.sweepTimer);
    const all = [...this.sessions.values(), ...this.evicted];
    for (const s of all) s.kill('closed');
    let deadline: NodeJS.Timeout | undefined;
    try {
      await Promise.race([Promise.all(all.map((s) => s.exited)), new Promise<void>((done) => (deadline = setTimeout(done, DISPOSE_DEADLINE_MS)))]);
    } finally {
      clearTimeout(deadline);
      for (const s of all) s.dispose();
      this.sessions.clear();
      this.evicted.clear();
      this.outputs.clear();
      this.exits.clear();
    }
  }

  private find(id: string): Result<PtySession> {
    const s = this.sessions.get(id);
    return s === undefined ? fail(NO_SUCH_SESSION) : ok(s);
  }

  /** Evicts the oldest live sessions until at most `limit` remain. */
  private evictDownTo(limit: number): void {
    const live = [...this.sessions.values()].filter((s) => !s.isExited);
    while (live.length > limit) {
      const victim = live.shift();
      if (victim === undefined) break;
      this.sessions.delete(victim.id);
      this.evicted.add(victim);
      victim.kill('evicted');
    }
  }

  private forgetOldExited(): void {
    const exited = [...this.sessions.values()].filter((s) => s.isExited);
    for (const s of exited.slice(0, Math.max(0, exited.length - MAX_EXITED_KEPT))) this.forget(s);
  }

  private forget(s: PtySession): void {
    this.sessions.delete(s.id);
    s.dispose();
  }
}

function positiveInteger(name: string, v: number): number {
  if (!Number.isInteger(v) || v < 1) throw new Error(`PtyManager: ${name} must be a positive whole number, got ${String(v)}`);
  return v;
}
