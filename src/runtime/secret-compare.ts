// Constant-time comparison of secrets (tokens, nonces): both sides are hashed first, so
// neither the length nor the content of the expected secret leaks through timing.
import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * The SHA-256 digest of a secret's UTF-8 bytes: what a long-lived secret is kept as.
 * @example const expected = secretDigest(accessToken)
 */
export function secretDigest(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

/**
 * Whether `given` is the secret whose digest is `expected` (from `secretDigest`), in constant time.
 * @example digestMatches(presented, secretDigest(accessToken)) // true only for the same string
 */
export function digestMatches(given: string, expected: Buffer): boolean {
  return sameDigest(secretDigest(given), expected);
}

/**
 * Whether two digests are equal, in constant time; digests of different lengths never are.
 * @example sameDigest(secretDigest(presented), stored.digest)
 */
export function sameDigest(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Whether two secrets are the same string, compared in constant time.
 * @example sameSecret('abc', 'abc') // true; sameSecret('abc', 'abcd') // false
 */
export function sameSecret(given: string, expected: string): boolean {
  return digestMatches(given, secretDigest(expected));
}
