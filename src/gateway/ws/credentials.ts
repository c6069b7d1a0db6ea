// Who a WebSocket connection acts as: the server's access token (the operator, with every
// capability) or a scoped token from config (only its scopes), compared by digest.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Principal } from '../../core/approvals/principal.js';
import { loopbackOperator } from '../../core/approvals/principal.js';
import type { CompiledToken } from '../auth.js';
import { MIN_SECRET_LENGTH } from '../auth.js';
import { TOKEN_COOKIE } from '../web-routes.js';

/**
 * What a connection may do. `pty` is running commands: only the access token carries it,
 * because config scopes (`approvals:*`) were granted for answering approvals, not for a shell.
 */
export type Capability = 'pty' | 'approvals:read' | 'approvals:resolve';

/** An authenticated connection's identity and what it may do. */
export interface Grant {
  principal: Principal;
  capabilities: ReadonlySet<Capability>;
}

/** Longest token we hash: real ones are far shorter, and this bounds work per attempt. */
export const MAX_TOKEN_CHARS = 512;

/** Every capability: what the access token grants. */
const ALL: ReadonlySet<Capability> = new Set<Capability>(['pty', 'approvals:read', 'approvals:resolve']);

/** A bearer credential: printable ASCII without spaces (RFC 6750 token68-ish). */
const BEARER_RE = /^Bearer +([\x21-\x7e]+) *$/i;

function sha256(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

/**
 * Matches presented secrets against the access token and the scoped tokens, always
 * comparing against every digest so timing reveals nothing.
 * @example new Credentials(accessToken, compiled).match(secret) // Grant | null
 */
export class Credentials {
  readonly #access: Buffer;

  constructor(
    accessToken: string,
    private readonly scoped: readonly CompiledToken[],
  ) {
    if (accessToken.length < MIN_SECRET_LENGTH) throw new Error(`the WebSocket access token must be at least ${MIN_SECRET_LENGTH} characters`);
    this.#access = sha256(accessToken);
  }

  /** The grant for `secret`, or null if it is no token of ours. */
  match(secret: string): Grant | null {
    if (secret.length === 0 || secret.length > MAX_TOKEN_CHARS) return null;
    const presented = sha256(secret);
    let grant: Grant | null = timingSafeEqual(presented, this.#access) ? { principal: loopbackOperator(), capabilities: ALL } : null;
    for (const t of this.scoped) {
      if (timingSafeEqual(presented, t.digest) && grant === null) grant = { principal: t.principal, capabilities: new Set<Capability>(t.scopes) };
    }
    return grant;
  }

  /**
   * Reads the upgrade request's credentials. `bad` means an Authorization header that is
   * not a valid token (refused at once); a stale cookie is ignored instead, because the
   * access token changes at every start and the page can still sign in by message.
   */
  fromRequest(req: IncomingMessage): { grant: Grant | null; bad: boolean } {
    const header = req.headers.authorization;
    if (header !== undefined) {
      const secret = BEARER_RE.exec(header)?.[1];
      const grant = secret === undefined ? null : this.match(secret);
      return { grant, bad: grant === null };
    }
    const cookie = cookieValue(req.headers.cookie, TOKEN_COOKIE);
    return { grant: cookie === null ? null : this.match(cookie), bad: false };
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
