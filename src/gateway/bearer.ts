// Reading the secret out of an `Authorization: Bearer …` header, for every route that
// takes one.

/** A bearer credential: printable ASCII without spaces (RFC 6750 token68-ish); the scheme is case-insensitive (RFC 7235). */
const BEARER_RE = /^Bearer +([\x21-\x7e]+) *$/i;

/**
 * The token of a `Bearer` Authorization header, or null when the header is missing, names
 * another scheme or carries no well-formed token.
 * @example bearerToken('Bearer abc123') // 'abc123'; bearerToken('Basic abc') // null
 */
export function bearerToken(header: string | undefined): string | null {
  if (header === undefined) return null;
  return BEARER_RE.exec(header)?.[1] ?? null;
}
