// Signing in with a pasted access token: the page posts it once to `POST /login`, which
// answers with the HttpOnly cookie, so a reload stays signed in and the page keeps no token.

/** How the exchange went: signed in (the cookie is set), refused (wrong token), or the server was unreachable. */
export type SignInOutcome = { kind: 'signed_in' } | { kind: 'refused'; reason: string } | { kind: 'unreachable' };

/** Said when the server's refusal carries no message of its own. */
const REFUSED = 'That is not this server\u2019s access token: copy it from the dashboard URL `gatehouse serve` printed.';

/**
 * Trades `token` for the session cookie. The token travels in a JSON body, never in a URL.
 * @example if ((await exchangeToken(pasted)).kind === 'signed_in') rpc.signIn(null)
 */
export async function exchangeToken(token: string): Promise<SignInOutcome> {
  let res: Response;
  try {
    res = await fetch('/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }), credentials: 'same-origin', cache: 'no-store' });
  } catch {
    return { kind: 'unreachable' };
  }
  if (res.status === 204) return { kind: 'signed_in' };
  if (res.status === 401) {
    const body = (await res.json().catch(() => null)) as { error?: { message?: unknown } } | null;
    const message = body?.error?.message;
    return { kind: 'refused', reason: typeof message === 'string' && message !== '' ? `${message[0]?.toUpperCase() ?? ''}${message.slice(1)}.` : REFUSED };
  }
  return { kind: 'unreachable' };
}
