// The closed word lists of a PTY session on the wire, as plain arrays so a client can check
// a frame against them without the schema library.

/** Why a session ended: on its own, closed by a client, evicted at the cap, or idle past the TTL. */
export const EXIT_REASONS = ['exited', 'closed', 'evicted', 'idle'] as const;

/** A session's state. */
export const PTY_STATES = ['running', 'exited'] as const;
