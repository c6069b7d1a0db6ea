// Who is calling: a scoped bearer token (compared by SHA-256 digest in constant time) or,
// with no tokens configured, the local operator on a loopback-only server.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Principal } from '../core/approvals/principal.js';
import { loopbackOperator, tokenPrincipal } from '../core/approvals/principal.js';
import type { Result } from '../core/result.js';
import { fail, ok } from '../core/result.js';
import { isLoopbackHostHeader, isLoopbackOrigin } from './host-origin.js';
import type { Scope, ScopedToken } from './options.js';
import { checkTokens, isLoopbackHost } from './options.js';

/** A token ready for comparison: only the digest of its secret is kept in memory. */
export interface CompiledToken {
  name: string;
  /** `token:<name>`, auth `scoped-token`, grant = the name. */
  principal: Principal;
  scopes: ReadonlySet<Scope>;
  digest: Buffer;
}

/** Shortest secret accepted from an env var: guessing it over HTTP must be hopeless. */
export const MIN_SECRET_LENGTH = 16;

/** A refusal: the HTTP status, a stable code and a message saying what to do. */
export interface AuthRefusal {
  status: 401 | 403;
  code: string;
  message: string;
  /** Value for `WWW-Authenticate` on a 401 (RFC 6750). */
  challenge?: string;
}

/** Either the caller's principal, or why it was refused. */
export type AuthOutcome = { ok: true; principal: Principal } | { ok: false; refusal: AuthRefusal };

/** What {@link authenticate} needs to know about the server. */
export interface AuthContext {
  tokens: readonly CompiledToken[];
  port: number;
  bindHost: string;
}

function sha256(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

/**
 * Validates the tokens and reads `env` secrets once, keeping only their digests.
 * @example compileTokens([{ principal: 'ci', scopes: ['approvals:read'], env: 'CI_TOKEN' }], process.env)
 */
export function compileTokens(tokens: ScopedToken[], env: NodeJS.ProcessEnv): Result<CompiledToken[]> {
  const valid = checkTokens(tokens);
  if (!valid.ok) return fail(valid.reason);
  const out: CompiledToken[] = [];
  for (const t of tokens) {
    let digest: Buffer;
    if (t.sha256 !== undefined) {
      digest = Buffer.from(t.sha256, 'hex');
    } else {
      const secret = env[t.env ?? ''];
      if (secret === undefined || secret.length < MIN_SECRET_LENGTH) {
        return fail(`token "${t.principal}": environment variable ${t.env} must hold a secret of at least ${MIN_SECRET_LENGTH} characters`);
      }
      digest = sha256(secret);
    }
    const twin = out.find((o) => o.digest.equals(digest));
    if (twin !== undefined) {
      return fail(`tokens "${twin.name}" and "${t.principal}" share one secret, so a request could not be attributed: give each its own`);
    }
    const principal = tokenPrincipal(t.principal, t.principal);
    if (!principal.ok) return fail(principal.reason);
    out.push({ name: t.principal, principal: principal.value, scopes: new Set(t.scopes), digest });
  }
  return ok(out);
}

/** A bearer credential: RFC 6750 token68-ish, printable ASCII without spaces. */
const BEARER_RE = /^Bearer +([\x21-\x7e]+) *$/i;

function refuse(status: 401 | 403, code: string, message: string, challenge?: string): AuthOutcome {
  return { ok: false, refusal: challenge === undefined ? { status, code, message } : { status, code, message, challenge } };
}

/** Finds the token whose digest matches, looking at every token so timing reveals nothing. */
function matchToken(secret: string, tokens: readonly CompiledToken[]): CompiledToken | null {
  const presented = sha256(secret);
  let found: CompiledToken | null = null;
  for (const t of tokens) {
    if (timingSafeEqual(presented, t.digest) && found === null) found = t;
  }
  return found;
}

/**
 * Names the caller of a request that needs `scope`. The `Host` and `Origin` headers
 * have already been checked for every request by the server.
 */
export function authenticate(req: IncomingMessage, scope: Scope, ctx: AuthContext): AuthOutcome {
  if (ctx.tokens.length > 0) return authenticateToken(req, scope, ctx.tokens);
  return authenticateLoopback(req, ctx);
}

function authenticateToken(req: IncomingMessage, scope: Scope, tokens: readonly CompiledToken[]): AuthOutcome {
  const header = req.headers.authorization;
  const realm = 'Bearer realm="gatehouse"';
  if (header === undefined) {
    return refuse(401, 'unauthorized', 'this server requires a token: send `Authorization: Bearer <secret>`', realm);
  }
  const m = BEARER_RE.exec(header);
  const token = m?.[1] === undefined ? null : matchToken(m[1], tokens);
  if (token === null) {
    return refuse(401, 'unauthorized', 'the bearer token is not valid: check the secret configured for your token', `${realm}, error="invalid_token"`);
  }
  if (!token.scopes.has(scope)) {
    return refuse(403, 'insufficient_scope', `token "${token.name}" lacks the ${scope} scope: add it to the token in gatehouse.yaml`);
  }
  return { ok: true, principal: token.principal };
}

function authenticateLoopback(req: IncomingMessage, ctx: AuthContext): AuthOutcome {
  const why =
    'without scoped tokens only a loopback request to a loopback-bound server is accepted: ' +
    `use http://127.0.0.1:${ctx.port}, or configure approvals tokens`;
  const remote = req.socket.remoteAddress ?? '';
  const origin = req.headers.origin;
  const local =
    isLoopbackHost(ctx.bindHost) &&
    isLoopbackHost(remote) &&
    isLoopbackHostHeader(req.headers.host, ctx.port) &&
    (origin === undefined || isLoopbackOrigin(origin, ctx.port));
  if (!local) return refuse(403, 'loopback_only', why);
  return { ok: true, principal: loopbackOperator() };
}
