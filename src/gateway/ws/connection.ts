// One WebSocket client: its grant once authenticated, its subscriptions, its event
// sequence and its outbox; everything the server sends it goes through here.
import type { WebSocket } from 'ws';
import type { OutputEncoding } from '../../protocol/binary-output.js';
import type { Capability, Grant } from '../credentials.js';
import type { RpcError } from './errors.js';
import { CLOSE_CODES } from './errors.js';
import type { Topic } from './events.js';
import type { RpcId } from './frames.js';
import { errorFrame, eventFrame, outputFrame, resultFrame } from './frames.js';
import type { OutputChunk } from './output-chunk.js';
import type { OutboxStats } from './outbox.js';
import { Outbox } from './outbox.js';
import type { Peer } from './session-hub.js';

/** One connection's state, for tests and diagnostics. */
export interface ConnectionStats extends OutboxStats {
  id: number;
  principal: string | null;
  topics: Topic[];
}

/**
 * A client connection.
 * @example const c = new Connection(1, ws, grant, Date.now); c.reply(7, { ok: true })
 */
export class Connection implements Peer {
  readonly #topics = new Set<Topic>();
  readonly #outbox: Outbox;
  /** Per-connection event counter: a gap means events were dropped for this client. */
  #seq = 0;
  /** Set by the heartbeat: whether a pong came back since the last ping. */
  alive = true;
  /** How this client takes `pty.output` (`events.subscribe {output}`); JSON with base64 until it asks. */
  output: OutputEncoding = 'base64';

  constructor(
    readonly id: number,
    readonly ws: WebSocket,
    /** Null until the connection authenticates. */
    public grant: Grant | null,
    private readonly now: () => number,
  ) {
    this.#outbox = new Outbox(ws, () => ws.close(CLOSE_CODES.too_slow, 'not reading: backlog over the limit'));
  }

  /** True if authenticated and holding `capability`. */
  can(capability: Capability): boolean {
    return this.grant?.capabilities.has(capability) ?? false;
  }

  wants(topic: Topic): boolean {
    return this.#topics.has(topic);
  }

  /** Adds topics; returns every topic now subscribed. */
  subscribe(topics: readonly Topic[]): Topic[] {
    for (const t of topics) this.#topics.add(t);
    return this.topics();
  }

  /** Removes topics; returns every topic still subscribed. */
  unsubscribe(topics: readonly Topic[]): Topic[] {
    for (const t of topics) this.#topics.delete(t);
    return this.topics();
  }

  topics(): Topic[] {
    return [...this.#topics];
  }

  send(topic: Topic, dataJson: string): void {
    this.#outbox.push(eventFrame(topic, dataJson, ++this.#seq, this.now()));
  }

  sendOutput(chunk: OutputChunk, droppable: boolean): void {
    const ts = this.now();
    if (this.output === 'binary') {
      const frames = chunk.binaryFrames(() => ++this.#seq, ts);
      if (droppable) this.#outbox.offer(frames, true);
      else this.#outbox.pushBinary(frames);
      return;
    }
    const frames = chunk.payloads().map((p) => outputFrame(p, ++this.#seq, ts));
    if (droppable) this.#outbox.offer(frames);
    else for (const f of frames) this.#outbox.push(f);
  }

  /** Answers request `id` (nothing for a notification, whose id is undefined). */
  reply(id: RpcId | undefined, result: unknown): void {
    if (id !== undefined) this.#outbox.push(resultFrame(id, result));
  }

  /** Answers request `id` with an error (nothing for a notification). */
  replyError(id: RpcId | undefined, error: RpcError): void {
    if (id !== undefined) this.#outbox.push(errorFrame(id, error));
  }

  /** Starts the closing handshake after what the socket already holds (an auth error reply goes out first). */
  close(code: number, reason: string): void {
    this.ws.close(code, reason);
  }

  /** Stops queueing; called once the socket is gone. */
  dispose(): void {
    this.#outbox.close();
  }

  stats(): ConnectionStats {
    return { id: this.id, principal: this.grant?.principal.id ?? null, topics: this.topics(), ...this.#outbox.stats() };
  }
}
