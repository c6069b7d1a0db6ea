// Tokens that make temp file names unique and tell one lock holder from another. They need to be
// unique, not secret: a temp file is created with O_EXCL, so a name already taken (a leftover, or a
// file or link the agent planted) fails that create and is retried under a new token, never
// reused; a lock's token only lets its holder recognise its own lock, and an agent that can write
// the lock's folder can remove or replace the lock whatever its token. `Math.random` is seeded per
// process from the system's entropy; node:crypto's randomBytes would cost a cold hook process
// 2.5–3 ms to load for the same bits.

/** 16 lowercase hex digits (64 bits) from `Math.random`. */
export function uniqueToken(): string {
  // Each call gives 32 bits of a double's 52 random ones: two make 64.
  const part = () =>
    Math.floor(Math.random() * 2 ** 32)
      .toString(16)
      .padStart(8, '0');
  return part() + part();
}
