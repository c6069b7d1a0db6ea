// Ack-based flow control between one PTY and its controlling client (as VS Code's
// terminal does it): too much unacknowledged output pauses the PTY, acks resume it.
import { FlowControlConstants } from '../../protocol/flow-control.js';

export { FlowControlConstants };

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
