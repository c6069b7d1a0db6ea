// The one Authorization-header parser every route uses: only a well-formed `Bearer`
// credential yields a token.
import { describe, expect, it } from 'vitest';
import { bearerToken } from '../../src/gateway/bearer.js';

describe('bearerToken', () => {
  it('finds no token when the header is missing or empty', () => {
    expect(bearerToken(undefined)).toBeNull();
    expect(bearerToken('')).toBeNull();
  });

  it('refuses another scheme', () => {
    expect(bearerToken('Basic dXNlcjpwYXNz')).toBeNull();
    expect(bearerToken('Token abc123')).toBeNull();
    expect(bearerToken('Bearerabc123')).toBeNull();
  });

  it('refuses a scheme with no token or a token with spaces or control characters', () => {
    expect(bearerToken('Bearer ')).toBeNull();
    expect(bearerToken('Bearer abc def')).toBeNull();
    expect(bearerToken('Bearer abc\tdef')).toBeNull();
  });

  it('returns the token, reading the scheme in any case and ignoring extra spaces', () => {
    expect(bearerToken('Bearer abc123')).toBe('abc123');
    expect(bearerToken('bearer abc123')).toBe('abc123');
    expect(bearerToken('Bearer   abc123  ')).toBe('abc123');
  });
});
