// One connection's outbound queue: frames go to the socket while it keeps up, wait here
// when it does not, and droppable output is refused once the backlog is full.
import type { WebSocket } from 'ws';

/**
 * Backlog (socket buffer + our queue) beyond which a viewer's new output is dropped: about
 * 20 full output frames, several screens of a busy terminal. A viewer that far behind has
 * lost the thread anyway and re-syncs with `pty.attach`; the agent never waits for it.
 */
export const VIEWER_BACKLOG_BYTES = 1024 * 1024;

/**
 * Backlog beyond which even must-deliver frames (responses, lifecycle events, the
 * controller's flow-controlled output) cannot be kept: the client has stopped reading, so
 * it is disconnected (4408). Controller output is bounded by the flow-control high
 * watermark (~140 KB of frames), so only a client that stops reading while it keeps
 * calling, or a socket stuck for minutes, gets here.
 */
const HARD_BACKLOG_BYTES = 8 * 1024 * 1024;

/**
 * Bytes handed to the socket before frames wait in our own queue instead: enough to keep
 * the kernel's buffer full on loopback, while the backlog stays where we can count it.
 */
const SOCKET_HIGH_WATER_BYTES = 256 * 1024;

/**
 * Counted per frame on top of its text: the largest header of an unmasked server frame
 * (2 + 8 bytes), so our count never undercounts what `bufferedAmount` will hold.
 */
const FRAME_HEADER_BYTES = 10;

/** Queue slots consumed before the array is compacted, so a long-lived queue does not grow forever. */
const COMPACT_AFTER = 1024;

/** A frame as text, or as bytes already encoded (output frames are built that way). */
export type Frame = string | Buffer;

/** How a queued frame goes out: a text message (JSON, as string or bytes) or a binary one. */
interface Queued {
  frame: Frame;
  bytes: number;
  binary: boolean;
}

/** A snapshot of one outbox, for tests and diagnostics. */
export interface OutboxStats {
  /** Frames waiting in our queue (not yet handed to the socket). */
  queuedFrames: number;
  queuedBytes: number;
  /** Bytes the socket has accepted but not yet written to the kernel. */
  bufferedAmount: number;
  /** Output frames dropped because the backlog was full. */
  dropped: number;
}

/**
 * Orders every frame for one socket and bounds what waits for it.
 * @example const box = new Outbox(ws, () => ws.terminate()); box.push(frame)
 */
export class Outbox {
  #frames: (Queued | undefined)[] = [];
  #head = 0;
  #queuedBytes = 0;
  #dropped = 0;
  #closed = false;
  /** Each write's completion makes room on the socket: send more. (Node passes null, not undefined, on success.) */
  readonly #afterSend = (err?: Error | null): void => {
    if (err === undefined || err === null) this.#flush();
  };

  constructor(
    private readonly ws: WebSocket,
    /** Called once when must-deliver frames overflow {@link HARD_BACKLOG_BYTES}. */
    private readonly onOverflow: () => void,
  ) {}

  /** Bytes waiting for the client: the socket's buffer plus our queue. */
  get backlog(): number {
    return this.ws.bufferedAmount + this.#queuedBytes;
  }

  stats(): OutboxStats {
    return { queuedFrames: this.#frames.length - this.#head, queuedBytes: this.#queuedBytes, bufferedAmount: this.ws.bufferedAmount, dropped: this.#dropped };
  }

  /** Queues a frame that must arrive; an unread client past the hard cap is disconnected. */
  push(frame: Frame): void {
    if (this.#closed) return;
    const bytes = (typeof frame === 'string' ? Buffer.byteLength(frame) : frame.length) + FRAME_HEADER_BYTES;
    if (this.backlog + bytes > HARD_BACKLOG_BYTES) {
      this.close();
      this.onOverflow();
      return;
    }
    this.#enqueue(frame, bytes, false);
  }

  /** Queues binary messages that must arrive (a binary controller's output), under the same hard cap. */
  pushBinary(frames: readonly Buffer[]): void {
    for (const f of frames) {
      if (this.#closed) return;
      const bytes = f.length + FRAME_HEADER_BYTES;
      if (this.backlog + bytes > HARD_BACKLOG_BYTES) {
        this.close();
        this.onOverflow();
        return;
      }
      this.#enqueue(f, bytes, true);
    }
  }

  /**
   * Queues droppable frames all or nothing (the parts of one output chunk), or drops
   * them, counted, when they would take the backlog past {@link VIEWER_BACKLOG_BYTES}.
   * `binary`: they go out as binary messages, else as JSON text.
   */
  offer(frames: readonly Buffer[], binary = false): boolean {
    if (this.#closed) return false;
    let bytes = 0;
    for (const f of frames) bytes += f.length + FRAME_HEADER_BYTES;
    if (this.backlog + bytes > VIEWER_BACKLOG_BYTES) {
      this.#dropped += frames.length;
      return false;
    }
    for (const f of frames) this.#enqueue(f, f.length + FRAME_HEADER_BYTES, binary);
    return true;
  }

  /** Forgets everything queued; later frames are ignored. */
  close(): void {
    this.#closed = true;
    this.#frames = [];
    this.#head = 0;
    this.#queuedBytes = 0;
  }

  #enqueue(frame: Frame, bytes: number, binary: boolean): void {
    this.#frames.push({ frame, bytes, binary });
    this.#queuedBytes += bytes;
    this.#flush();
  }

  #flush(): void {
    while (this.#head < this.#frames.length && this.ws.readyState === this.ws.OPEN && this.ws.bufferedAmount < SOCKET_HIGH_WATER_BYTES) {
      const frame = this.#frames[this.#head];
      this.#frames[this.#head++] = undefined;
      if (frame === undefined) continue;
      this.#queuedBytes -= frame.bytes;
      // A Buffer goes out as a binary message unless told otherwise: JSON frames built as bytes are text.
      this.ws.send(frame.frame, { binary: frame.binary }, this.#afterSend);
    }
    if (this.#head >= this.#frames.length) {
      this.#frames = [];
      this.#head = 0;
    } else if (this.#head >= COMPACT_AFTER) {
      this.#frames = this.#frames.slice(this.#head);
      this.#head = 0;
    }
  }
}
