// The bind rule, token validation and the Host/Origin parsers on their own: a port
// reachable from other machines needs tokens, and only this server's names are answered.
import { describe, expect, it } from 'vitest';
import { isAllowedHost, isAllowedOrigin, parseAuthority } from '../../src/gateway/host-origin.js';
import { checkBind, checkTokens } from '../../src/gateway/options.js';
import { startGateway } from '../../src/gateway/server.js';
import { tempDir } from '../support/cli.js';
import { SECRET, sha256Hex } from './support.js';

const token = { principal: 'alice', scopes: ['approvals:resolve' as const], sha256: sha256Hex(SECRET) };

describe('checkBind', () => {
  it('refuses a non-loopback bind without scoped tokens', () => {
    for (const host of ['0.0.0.0', '::', '192.168.1.5', 'devbox.lan']) {
      const r = checkBind(host, []);
      expect(r.ok, host).toBe(false);
      if (!r.ok) expect(r.reason).toMatch(/token/);
    }
  });

  it('allows a non-loopback bind once scoped tokens are configured', () => {
    expect(checkBind('0.0.0.0', [token]).ok).toBe(true);
  });

  it('allows loopback binds without tokens', () => {
    for (const host of ['127.0.0.1', 'localhost', '::1', '127.0.0.2']) expect(checkBind(host, []).ok, host).toBe(true);
  });

  it('makes startGateway refuse a non-loopback bind without tokens before listening', async () => {
    await expect(startGateway({ projectState: tempDir('gh-gateway-'), host: '0.0.0.0', port: 0, accessToken: 'access-token-0123456789abcdef', tokens: [] })).rejects.toThrow(/refusing to listen/);
  });
});

describe('checkTokens', () => {
  it('accepts a well-formed token', () => {
    expect(checkTokens([token]).ok).toBe(true);
  });

  it.each([
    ['a name that cannot be a principal', { ...token, principal: 'has space' }],
    ['no secret source', { principal: 'a', scopes: ['approvals:read' as const] }],
    ['both secret sources', { ...token, env: 'X_TOKEN' }],
    ['a digest that is not 64 hex digits', { ...token, sha256: 'abc' }],
    ['no scopes', { ...token, scopes: [] }],
  ])('refuses %s', (_what, t) => {
    expect(checkTokens([t]).ok).toBe(false);
  });

  it('refuses two tokens with one name', () => {
    expect(checkTokens([token, { ...token, sha256: sha256Hex('another-secret-value') }]).ok).toBe(false);
  });
});

describe('Host and Origin', () => {
  it('parses host[:port] strictly', () => {
    expect(parseAuthority('LocalHost:7337')).toEqual({ host: 'localhost', port: 7337 });
    expect(parseAuthority('[::1]:7337')).toEqual({ host: '[::1]', port: 7337 });
    expect(parseAuthority('example.com')).toEqual({ host: 'example.com', port: 80 });
    for (const bad of ['', 'a b', 'x:0', 'x:70000', 'user@x:1', 'x:1/y']) expect(parseAuthority(bad), bad).toBeNull();
  });

  it('on a wildcard bind accepts IP literals and configured names on its port, never other names', () => {
    const policy = { port: 7337, bindHost: '0.0.0.0', extra: ['devbox.lan'] };
    expect(isAllowedHost('192.168.1.5:7337', policy)).toBe(true);
    expect(isAllowedHost('devbox.lan:7337', policy)).toBe(true);
    expect(isAllowedHost('localhost:7337', policy)).toBe(true);
    expect(isAllowedHost('evil.example:7337', policy)).toBe(false);
    expect(isAllowedHost('192.168.1.5:8080', policy)).toBe(false);
    expect(isAllowedHost(undefined, policy)).toBe(false);
  });

  it('on a loopback bind accepts only loopback names', () => {
    const policy = { port: 7337, bindHost: '127.0.0.1', extra: [] };
    expect(isAllowedHost('127.0.0.1:7337', policy)).toBe(true);
    expect(isAllowedHost('192.168.1.5:7337', policy)).toBe(false);
  });

  it('accepts no Origin, loopback origins on its port and the same origin as Host', () => {
    expect(isAllowedOrigin(undefined, 'localhost:7337', 7337)).toBe(true);
    expect(isAllowedOrigin('http://localhost:7337', '127.0.0.1:7337', 7337)).toBe(true);
    expect(isAllowedOrigin('http://devbox.lan:7337', 'devbox.lan:7337', 7337)).toBe(true);
    expect(isAllowedOrigin('http://evil.example', 'localhost:7337', 7337)).toBe(false);
    expect(isAllowedOrigin('http://localhost:7337/path', 'localhost:7337', 7337)).toBe(false);
  });
});
