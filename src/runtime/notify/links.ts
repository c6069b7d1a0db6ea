// Single-use approval links: a capability for one waiting call, sent in a notification. The
// token is 256 random bits; only its SHA-256 is kept, in the memory of the `gatehouse serve`
// that sent it (never on disk, where the agent could plant one). A link opens the call's page
// until the call is answered or expires, and answers it once; every later use is refused.
import { createHash, randomBytes } from 'node:crypto';

/** What one link may do, found by the hash of its token. */
export interface LinkGrant {
  approvalId: string;
  /** The channel the link was sent on: its user is recorded as `link:<channel>`. */
  channel: string;
  /** Epoch ms after which the link is refused. */
  expiresAt: number;
}

/** Why a link cannot be used: 404, never issued here (or the server restarted); 410, used or expired. */
export type LinkRefusal = { status: 404 | 410; code: 'unknown_link' | 'link_used' | 'link_expired'; message: string };

/** Longest a link lives, however long its call may wait: a link in a chat history should die soon. */
export const MAX_LINK_TTL_MS = 60 * 60 * 1000;
/** How long a dead link is remembered, so its use is told "used" or "expired" (410), not "unknown". */
const REMEMBER_DEAD_MS = 24 * 60 * 60 * 1000;
/** Links kept at most; the oldest are dropped first (a request waits minutes, not days). */
const MAX_LINKS = 10_000;
/** 256 bits, base64url: unguessable, and short enough for a push message. */
const TOKEN_BYTES = 32;
/** A token as it is sent: 43 base64url characters. */
const TOKEN_RE = /^[A-Za-z0-9_-]{43}$/;

const digest = (token: string): string => createHash('sha256').update(token).digest('hex');

/**
 * The links one server issued.
 * @example const book = new LinkBook(); const t = book.issue({ approvalId, channel: 'ntfy', expiresAt }); book.use(t)
 */
export class LinkBook {
  /** Grants by token hash, in issue order. */
  private readonly grants = new Map<string, LinkGrant & { used: boolean }>();

  constructor(private readonly now: () => number = Date.now) {}

  /** A fresh token for `grant` (its expiry capped at {@link MAX_LINK_TTL_MS} from now). */
  issue(grant: LinkGrant): string {
    const token = randomBytes(TOKEN_BYTES).toString('base64url');
    const expiresAt = Math.min(grant.expiresAt, this.now() + MAX_LINK_TTL_MS);
    this.prune();
    this.grants.set(digest(token), { ...grant, expiresAt, used: false });
    return token;
  }

  /** The grant a token holds, to show its call; refused once used or expired. */
  peek(token: unknown): { ok: true; grant: LinkGrant } | { ok: false; refusal: LinkRefusal } {
    const found = typeof token === 'string' && TOKEN_RE.test(token) ? this.grants.get(digest(token)) : undefined;
    if (found === undefined) {
      return { ok: false, refusal: { status: 404, code: 'unknown_link', message: 'This link is not one this server sent (or the server restarted since): open the dashboard instead.' } };
    }
    if (found.used) return { ok: false, refusal: { status: 410, code: 'link_used', message: 'This link has already been used: each link answers its call once.' } };
    if (this.now() >= found.expiresAt) return { ok: false, refusal: { status: 410, code: 'link_expired', message: 'This link has expired: open the dashboard to see what is still waiting.' } };
    return { ok: true, grant: { approvalId: found.approvalId, channel: found.channel, expiresAt: found.expiresAt } };
  }

  /**
   * Spends the link: the one caller that gets `ok` may answer its call; every other use, at
   * the same moment or later, is refused. `giveBack` undoes it when the answer could not be
   * recorded, so the person can try again.
   */
  use(token: unknown): { ok: true; grant: LinkGrant; giveBack: () => void } | { ok: false; refusal: LinkRefusal } {
    const seen = this.peek(token);
    if (!seen.ok) return seen;
    const entry = this.grants.get(digest(token as string))!;
    entry.used = true;
    return { ok: true, grant: seen.grant, giveBack: () => void (entry.used = false) };
  }

  /** Forgets links dead for a day, then the oldest past {@link MAX_LINKS}. */
  private prune(): void {
    const now = this.now();
    for (const [key, g] of this.grants) if (now >= g.expiresAt + REMEMBER_DEAD_MS) this.grants.delete(key);
    for (const key of this.grants.keys()) {
      if (this.grants.size < MAX_LINKS) break;
      this.grants.delete(key);
    }
  }
}
