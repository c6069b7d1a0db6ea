// The flow-control numbers both ends of a PTY stream must agree on (as VS Code's terminal
// does it): the server pauses on unacknowledged output, the client acknowledges in steps.

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
