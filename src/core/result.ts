// Outcomes a user or an agent can cause are values, not exceptions.
// `reason` is a sentence that says what went wrong and what to do next.

/** A success carrying a value, or a failure carrying a human-readable reason. */
export type Result<T> = { ok: true; value: T } | { ok: false; reason: string };

/** Wraps a value as a success. */
export function ok<T>(value: T): Result<T> {
  return { ok: true, value };
}

/** Wraps a reason as a failure. */
export function fail<T = never>(reason: string): Result<T> {
  return { ok: false, reason };
}
