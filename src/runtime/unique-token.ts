// Tokens that make temp and lock file names unique. They need to be unique, not secret: every file
// named with one is created with O_EXCL, so a name already taken (a leftover, or a file planted by
// the agent) fails that create and is retried under a new token, never reused. `Math.random` is
// seeded per process from the system's entropy; node:crypto's randomBytes would cost a cold hook
// process 3–4 ms to load for the same bits.

/** 16 lowercase hex digits (64 bits) from `Math.random`. */
export function uniqueToken(): string {
  // Each call gives 32 bits of a double's 52 random ones: two make 64.
  const part = () =>
    Math.floor(Math.random() * 2 ** 32)
      .toString(16)
      .padStart(8, '0');
  return part() + part();
}
