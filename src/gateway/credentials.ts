// Who a caller is, for HTTP and WebSocket alike: the server's access token (the operator,
// with every capability) or a scoped token from config (only its scopes), compared by digest.
import type { IncomingMessage } from 'node:http';
import type { Principal } from '../core/approvals/principal.js';
import { tokenPrincipal } from '../core/approvals/principal.js';
import type { Result } from '../core/result.js';
import { fail, ok } from '../core/result.js';
import type { Scope, ScopedToken } from './options.js';
import { checkTokens } from './options.js';
import { sameDigest, secretDigest } from '../runtime/secret-compare.js';
import { bearerToken } from './bearer.js';
import { TOKEN_COOKIE } from './web-routes.js';

/**
 * What a caller may do. `pty` is running commands: only the access token carries it,
 * because config scopes (`approvals:*`) were granted for answering approvals, not for a shell.
 */
export type Capability = 'pty' | Scope;

/** An authenticated caller's identity and what it may do. */
export interface Grant {
  principal: Principal;
  capabilities: ReadonlySet<Capability>;
}

/** A token ready for comparison: only the digest of its secret is kept in memory. */
export interface CompiledToken {
  name: string;
  /** `token:<name>`, auth `scoped-token`, grant = the name. */
  principal: Principal;
  scopes: ReadonlySet<Scope>;
  digest: Buffer;
}

/** Shortest secret accepted (access token or env token): guessing it over HTTP must be hopeless. */
const MIN_SECRET_LENGTH = 16;

/** Longest token we hash: real ones are far shorter, and this bounds work per attempt. */
const MAX_TOKEN_CHARS = 512;

/** Every capability: what the access token grants. */
const ALL: ReadonlySet<Capability> = new Set<Capability>(['pty', 'approvals:read', 'approvals:resolve']);

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
      digest = secretDigest(secret);
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

/**
 * What a request presents: `none` (no Authorization header, no cookie), a grant, or
 * `invalid` (a credential that is no token of ours, named by where it came from).
 */
export type Presented = { kind: 'none' } | { kind: 'grant'; grant: Grant } | { kind: 'invalid'; via: 'bearer' | 'cookie' };

/**
 * Matches presented secrets against the access token (held by `operator`) and the scoped
 * tokens, always comparing against every digest so timing reveals nothing.
 * @example new Credentials(accessToken, operator, compiled).match(secret) // Grant | null
 */
export class Credentials {
  readonly #access: Buffer;

  constructor(
    accessToken: string,
    private readonly operator: Principal,
    private readonly scoped: readonly CompiledToken[],
  ) {
    if (accessToken.length < MIN_SECRET_LENGTH) throw new Error(`the access token must be at least ${MIN_SECRET_LENGTH} characters`);
    this.#access = secretDigest(accessToken);
  }

  /** Whether any scoped token is configured (error messages mention them only then). */
  get hasScopedTokens(): boolean {
    return this.scoped.length > 0;
  }

  /** The grant for `secret`, or null if it is no token of ours. */
  match(secret: string): Grant | null {
    if (secret.length === 0 || secret.length > MAX_TOKEN_CHARS) return null;
    const presented = secretDigest(secret);
    let grant: Grant | null = sameDigest(presented, this.#access) ? { principal: this.operator, capabilities: ALL } : null;
    for (const t of this.scoped) {
      if (sameDigest(presented, t.digest) && grant === null) grant = { principal: t.principal, capabilities: new Set<Capability>(t.scopes) };
    }
    return grant;
  }

  /**
   * Reads a request's credential: `Authorization: Bearer …` when the header is there
   * (then the cookie is not looked at), else the sign-in cookie.
   */
  fromRequest(req: IncomingMessage): Presented {
    const header = req.headers.authorization;
    if (header !== undefined) {
      const secret = bearerToken(header);
      const grant = secret === null ? null : this.match(secret);
      return grant === null ? { kind: 'invalid', via: 'bearer' } : { kind: 'grant', grant };
    }
    const cookie = cookieValue(req.headers.cookie, TOKEN_COOKIE);
    if (cookie === null) return { kind: 'none' };
    const grant = this.match(cookie);
    return grant === null ? { kind: 'invalid', via: 'cookie' } : { kind: 'grant', grant };
  }
}

/** The value of cookie `name` in a `Cookie` header, or null. */
export function cookieValue(header: string | undefined, name: string): string | null {
  if (header === undefined) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    const raw = part.slice(eq + 1).trim();
    const unquoted = raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1) : raw;
    try {
      return decodeURIComponent(unquoted);
    } catch {
      return unquoted;
    }
  }
  return null;
}
