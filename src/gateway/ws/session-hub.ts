// Fans PTY output and lifecycle events out to connections: who watches which session,
// who controls it (flow-controlled, never dropped), and viewers whose output may be dropped.
import type { ExitInfo, PtyInfo } from '../pty/types.js';
import type { Topic } from './events.js';
import type { FlowAction } from './flow-control.js';
import { FlowControl } from './flow-control.js';
import { OutputChunk } from './output-chunk.js';
import type { PtyHost } from './pty-host.js';

/** A connection as the hub sees it. */
export interface Peer {
  readonly id: number;
  /** True if the connection subscribed to `topic` (and may receive it). */
  wants(topic: Topic): boolean;
  /** Sends an event that must arrive. */
  send(topic: Topic, dataJson: string): void;
  /** Sends the `pty.output` events of one chunk, in its encoding: must arrive, or droppable as a whole. */
  sendOutput(chunk: OutputChunk, droppable: boolean): void;
}

interface SessionState {
  watchers: Set<Peer>;
  controller: Peer | null;
  flow: FlowControl;
  /** The Gatehouse session's end, for PTYs spawned under one. */
  onExit: ((info: ExitInfo) => void | Promise<void>) | null;
}

/** One session's flow state, for tests and diagnostics. */
export interface FlowStats {
  session_id: string;
  controller: number | null;
  watchers: number;
  unacked: number;
  paused: boolean;
}

/**
 * The routing table between the PTY manager and the connections.
 * @example const hub = new SessionHub(manager, log); manager.onOutput((id, seq, d) => hub.output(id, seq, d))
 */
export class SessionHub {
  readonly #sessions = new Map<string, SessionState>();
  readonly #peers = new Set<Peer>();
  /** The ends of exited sessions still running (their final checks, their sandboxes closing). */
  readonly #ending = new Set<Promise<void>>();

  constructor(
    private readonly manager: PtyHost,
    private readonly log: (line: string) => void,
  ) {}

  /** Adds an authenticated connection: from now on it can receive broadcasts. */
  join(peer: Peer): void {
    this.#peers.add(peer);
  }

  /** Removes a connection everywhere; a session it controlled resumes without a controller. */
  leave(peer: Peer): void {
    this.#peers.delete(peer);
    for (const [id, s] of this.#sessions) {
      s.watchers.delete(peer);
      if (s.controller === peer) {
        s.controller = null;
        this.#apply(id, s.flow.reset());
      }
      this.#forget(id, s);
    }
  }

  /** Sends `data` as `topic` to every connection subscribed to it, serialised once. */
  broadcast(topic: Topic, data: unknown): void {
    let json: string | null = null;
    for (const p of this.#peers) {
      if (!p.wants(topic)) continue;
      json ??= JSON.stringify(data);
      p.send(topic, json);
    }
  }

  /** Records a PTY that `peer` spawned: it watches and controls it. */
  spawned(peer: Peer, info: PtyInfo, onExit: ((info: ExitInfo) => void | Promise<void>) | null): void {
    const s = this.#state(info.id);
    s.onExit = onExit;
    s.watchers.add(peer);
    s.controller = peer;
    this.broadcast('pty.spawned', { session_id: info.id, info });
  }

  /** Makes `peer` watch a session, and with `control` its controller (the old one becomes a viewer). */
  attach(peer: Peer, id: string, control: boolean): void {
    const s = this.#state(id);
    s.watchers.add(peer);
    if (control && s.controller !== peer) {
      s.controller = peer;
      this.#apply(id, s.flow.reset());
    }
  }

  /** Stops `peer` watching (and controlling) a session. */
  detach(peer: Peer, id: string): void {
    const s = this.#sessions.get(id);
    if (s === undefined) return;
    s.watchers.delete(peer);
    if (s.controller === peer) {
      s.controller = null;
      this.#apply(id, s.flow.reset());
    }
    this.#forget(id, s);
  }

  /** True if `peer` controls session `id`. */
  controls(peer: Peer, id: string): boolean {
    return this.#sessions.get(id)?.controller === peer;
  }

  /** Counts an ack from `peer`; only the controller's acks count. */
  ack(peer: Peer, id: string, chars: number): { controller: boolean; unacked: number; paused: boolean } {
    const s = this.#sessions.get(id);
    if (s === undefined || s.controller !== peer) return { controller: false, unacked: 0, paused: false };
    this.#apply(id, s.flow.acked(chars));
    return { controller: true, unacked: s.flow.unacked, paused: s.flow.paused };
  }

  /** Tells the session's watchers its new size. */
  resized(id: string, cols: number, rows: number): void {
    const s = this.#sessions.get(id);
    if (s === undefined) return;
    const json = JSON.stringify({ session_id: id, cols, rows });
    for (const p of s.watchers) if (p.wants('pty.resized')) p.send('pty.resized', json);
  }

  /**
   * The realtime path: one output chunk to every watcher subscribed to `pty.output`. It
   * never waits: the controller's frames are queued and counted against its watermark,
   * a viewer's are dropped whole when its backlog is full.
   */
  output(id: string, seq: number, data: Buffer): void {
    const s = this.#sessions.get(id);
    if (s === undefined) return;
    let chunk: OutputChunk | null = null;
    for (const p of s.watchers) {
      if (!p.wants('pty.output')) continue;
      chunk ??= new OutputChunk(id, seq, data);
      if (p === s.controller) {
        p.sendOutput(chunk, false);
        this.#apply(id, s.flow.sent(data.length));
      } else {
        p.sendOutput(chunk, true);
      }
    }
  }

  /** The session ended (after its last output): tell subscribers, end its Gatehouse session, forget it. */
  exit(id: string, info: ExitInfo): void {
    const s = this.#sessions.get(id);
    this.#sessions.delete(id);
    this.broadcast('pty.exit', { session_id: id, exit_code: info.exit_code, signal: info.signal, reason: info.reason });
    const onExit = s?.onExit ?? null;
    if (onExit !== null) this.endSession(onExit, info, `PTY ${id}`);
  }

  /**
   * Runs a Gatehouse session's end: at its PTY's exit, or when its PTY never started (`what`
   * names it in the log). {@link endsDone} waits for it.
   */
  endSession(onExit: (info: ExitInfo) => void | Promise<void>, info: ExitInfo, what: string): void {
    const failed = (err: unknown): void => this.log(`gatehouse ws: ending the session of ${what} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    try {
      const done = onExit(info);
      if (done === undefined) return;
      const ending: Promise<void> = done.catch(failed).finally(() => this.#ending.delete(ending));
      this.#ending.add(ending);
    } catch (err) {
      failed(err);
    }
  }

  /** Settles once the session ends started so far are done, or after `deadlineMs`; false when some were not. */
  async endsDone(deadlineMs: number): Promise<boolean> {
    if (this.#ending.size === 0) return true;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((done) => (timer = setTimeout(() => done(false), deadlineMs)));
    try {
      return await Promise.race([Promise.allSettled([...this.#ending]).then(() => true), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Flow state of every tracked session. */
  stats(): FlowStats[] {
    return [...this.#sessions].map(([id, s]) => ({ session_id: id, controller: s.controller?.id ?? null, watchers: s.watchers.size, unacked: s.flow.unacked, paused: s.flow.paused }));
  }

  #state(id: string): SessionState {
    let s = this.#sessions.get(id);
    if (s === undefined) {
      s = { watchers: new Set(), controller: null, flow: new FlowControl(), onExit: null };
      this.#sessions.set(id, s);
    }
    return s;
  }

  /** Drops the state of a session nobody watches and that has nothing to do at its end. */
  #forget(id: string, s: SessionState): void {
    if (s.watchers.size === 0 && s.onExit === null && !s.flow.paused) this.#sessions.delete(id);
  }

  #apply(id: string, action: FlowAction): void {
    if (action === 'pause') this.manager.pause(id);
    else if (action === 'resume') this.manager.resume(id);
  }
}
