import { describe, expect, it } from 'vitest';
import { checkPrincipal, dashboardOperator, osUserPrincipal, systemPrincipal, tokenPrincipal, type Principal } from '../../../src/core/approvals/principal.js';

describe('checkPrincipal', () => {
  const table: [what: string, p: Principal, valid: boolean][] = [
    ['accepts an OS user at a local shell', { id: 'os-user:alice', auth: 'local-shell' }, true],
    ['accepts a named token with its grant', { id: 'token:ci', auth: 'scoped-token', grant: 'ci' }, true],
    ['accepts the access token holder, named', { id: 'dashboard-operator:alice', auth: 'access-token' }, true],
    ['accepts a system component from the server itself', { id: 'system:approval-queue/ttl-expiry', auth: 'server-internal' }, true],
    ['accepts a principal pinned to a session', { id: 'os-user:bob', auth: 'local-shell', session: 'S_1-a' }, true],
    ['refuses the reserved system: namespace to a local shell user', { id: 'system:sweeper', auth: 'local-shell' }, false],
    ['refuses the reserved system: namespace to a token', { id: 'system:sweeper', auth: 'scoped-token', grant: 'x' }, false],
    ['refuses the reserved system: namespace to the dashboard', { id: 'system:sweeper', auth: 'access-token' }, false],
    ['refuses the dashboard operator without a name', { id: 'dashboard-operator', auth: 'access-token' }, false],
    ['refuses the loopback auth that no longer names anyone', { id: 'dashboard-operator', auth: 'loopback' as Principal['auth'] }, false],
    ['refuses a server-internal principal outside system:', { id: 'os-user:root', auth: 'server-internal' }, false],
    ['refuses an id in another auth namespace', { id: 'token:ci', auth: 'local-shell' }, false],
    ['refuses an access-token holder that claims another namespace', { id: 'os-user:alice', auth: 'access-token' }, false],
    ['refuses an empty name', { id: 'os-user:', auth: 'local-shell' }, false],
    ['refuses a name with spaces or controls', { id: 'os-user:a b\n', auth: 'local-shell' }, false],
    ['refuses a / in a person’s name', { id: 'token:a/b', auth: 'scoped-token', grant: 'x' }, false],
    ['refuses a token without a grant', { id: 'token:ci', auth: 'scoped-token' }, false],
    ['refuses a grant on anything but a token', { id: 'os-user:alice', auth: 'local-shell', grant: 'x' }, false],
    ['refuses an invalid session id', { id: 'os-user:alice', auth: 'local-shell', session: '../x' }, false],
    ['refuses an unknown auth', { id: 'os-user:alice', auth: 'password' as Principal['auth'] }, false],
  ];
  for (const [what, p, valid] of table) {
    it(what, () => expect(checkPrincipal(p).ok).toBe(valid));
  }

  it('says which namespace a person may use when they reach for system:', () => {
    const r = checkPrincipal({ id: 'system:x', auth: 'local-shell' });
    expect(r).toEqual({ ok: false, reason: expect.stringMatching(/reserved system: namespace.*os-user:, token: or dashboard-operator:/) });
  });
});

describe('principal constructors', () => {
  it('build valid principals for each auth', () => {
    expect(osUserPrincipal('alice')).toEqual({ ok: true, value: { id: 'os-user:alice', auth: 'local-shell' } });
    expect(tokenPrincipal('ci', 'approvals')).toEqual({ ok: true, value: { id: 'token:ci', auth: 'scoped-token', grant: 'approvals' } });
    expect(dashboardOperator('alice')).toEqual({ ok: true, value: { id: 'dashboard-operator:alice', auth: 'access-token' } });
    expect(systemPrincipal('approval-queue/sweeper')).toEqual({ id: 'system:approval-queue/sweeper', auth: 'server-internal' });
  });

  it('return an error value for a bad user or token name', () => {
    expect(osUserPrincipal('a:b').ok).toBe(false);
    expect(tokenPrincipal('', 'g').ok).toBe(false);
  });

  it('throw for a bad system component, which is a bug in our code', () => {
    expect(() => systemPrincipal('')).toThrow(Error);
  });
});
