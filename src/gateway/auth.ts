// Who is calling an HTTP route that needs a scope: the holder of the server's access token
// (bearer or the dashboard's cookie) or of a scoped token. Loopback alone proves nothing.
import type { IncomingMessage } from 'node:http';
import type { Principal } from '../core/approvals/principal.js';
import type { Credentials } from './credentials.js';
import type { Scope } from './options.js';

/** A refusal: the HTTP status, a stable code and a message saying what to do. */
interface AuthRefusal {
  status: 401 | 403;
  code: string;
  message: string;
  /** Value for `WWW-Authenticate` on a 401 (RFC 6750). */
  challenge?: string;
}

/** Either the caller's principal, or why it was refused. */
export type AuthOutcome = { ok: true; principal: Principal } | { ok: false; refusal: AuthRefusal };

const REALM = 'Bearer realm="gatehouse"';

function refuse(status: 401 | 403, code: string, message: string, challenge?: string): AuthOutcome {
  return { ok: false, refusal: challenge === undefined ? { status, code, message } : { status, code, message, challenge } };
}

/**
 * Names the caller of a request that needs `scope`. Every such request carries a credential,
 * on loopback too: any local process (an agent among them) can reach a loopback port, so
 * only a secret the operator holds can answer for a person. The `Host` and `Origin`
 * headers have already been checked for every request by the server.
 */
export function authenticate(req: IncomingMessage, scope: Scope, credentials: Credentials): AuthOutcome {
  const presented = credentials.fromRequest(req);
  const scoped = credentials.hasScopedTokens ? ', or a scoped token from gatehouse.yaml' : '';
  if (presented.kind === 'none') {
    return refuse(
      401,
      'unauthorized',
      `this endpoint needs a credential: send \`Authorization: Bearer <access token>\` with the token in the dashboard URL \`gatehouse serve\` printed${scoped}, or open that URL in a browser`,
      REALM,
    );
  }
  if (presented.kind === 'invalid') {
    const what =
      presented.via === 'cookie'
        ? 'the dashboard cookie is from an earlier start of `gatehouse serve`: open the URL it printed this time'
        : `the bearer token is not valid: use the access token \`gatehouse serve\` printed${scoped}`;
    return refuse(401, 'unauthorized', what, `${REALM}, error="invalid_token"`);
  }
  const { grant } = presented;
  if (!grant.capabilities.has(scope)) {
    return refuse(403, 'insufficient_scope', `${grant.principal.id} lacks the ${scope} scope: add it to the token in gatehouse.yaml`);
  }
  return { ok: true, principal: grant.principal };
}
