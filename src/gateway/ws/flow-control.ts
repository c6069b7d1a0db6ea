// Ack-based flow control between one PTY and its controlling client (as VS Code's
// terminal does it): too much unacknowledged output pauses the PTY, acks resume it.

/**
 * The controller's flow-control contract; "chars" are bytes of decoded PTY output (what
 * the client's terminal parses). The values are VS Code's `FlowControlConstants`.
 */
export const FlowControlConstants = {
  /** Unacknowledged chars above which the PTY is paused: ~100 KB keeps a fast terminal busy between acks. */
  HighWatermarkChars: 100_000,
  /** Once acks bring the unacknowledged chars below this, the PTY resumes. */
  LowWatermarkChars: 5_000,
  /**
   * How many chars the client acknowledges at a time, after its terminal parsed them.
   * Must be ≤ LowWatermarkChars, or the terminal never unpauses: with a bigger ack size
   * the client can be left holding fewer than one ack's worth of unacked chars that it
   * never reports, while the server still counts more than the low watermark.
   */
  CharCountAckSize: 5_000,
} as const;

/** What a flow-control step asks the PTY to do. */
export type FlowAction = 'pause' | 'resume' | null;

/**
 * The unacknowledged-output account of one session's controller.
 * @example const f = new FlowControl(); if (f.sent(n) === 'pause') manager.pause(id)
 */
export class FlowControl {
  #unacked = 0;
  #paused = false;

  get unacked(): number {
    return this.#unacked;
  }

  get paused(): boolean {
    return this.#paused;
  }

  /** Counts `chars` sent to the controller; 'pause' the first time the high watermark is crossed. */
  sent(chars: number): FlowAction {
    this.#unacked += chars;
    if (this.#paused || this.#unacked <= FlowControlConstants.HighWatermarkChars) return null;
    this.#paused = true;
    return 'pause';
  }

  /** Counts an ack (never below zero: a client cannot bank credit); 'resume' once below the low watermark. */
  acked(chars: number): FlowAction {
    this.#unacked = Math.max(0, this.#unacked - chars);
    if (!this.#paused || this.#unacked >= FlowControlConstants.LowWatermarkChars) return null;
    this.#paused = false;
    return 'resume';
  }

  /** Forgets the account (the controller left or changed); 'resume' if the PTY was paused. */
  reset(): FlowAction {
    this.#unacked = 0;
    if (!this.#paused) return null;
    this.#paused = false;
    return 'resume';
  }
}
