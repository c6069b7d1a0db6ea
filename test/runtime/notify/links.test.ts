// Single-use approval links: unguessable, kept only as hashes, good until the call's expiry (at
// most an hour), spent by the first answer; a used or expired link is told apart from an unknown one.
import { describe, expect, it } from 'vitest';
import { LinkBook, MAX_LINK_TTL_MS } from '../../../src/runtime/notify/links.js';

describe('LinkBook', () => {
  it('issues a fresh 256-bit token per link and finds its grant by it', () => {
    const book = new LinkBook();
    const a = book.issue({ approvalId: 'ap-1', channel: 'ntfy', expiresAt: Date.now() + 60_000 });
    const b = book.issue({ approvalId: 'ap-1', channel: 'ntfy', expiresAt: Date.now() + 60_000 });
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(a).not.toBe(b);
    expect(book.peek(a)).toMatchObject({ ok: true, grant: { approvalId: 'ap-1', channel: 'ntfy' } });
  });

  it('keeps no token, only its hash', () => {
    const book = new LinkBook();
    const token = book.issue({ approvalId: 'ap-1', channel: 'ntfy', expiresAt: Date.now() + 60_000 });
    expect(JSON.stringify([...(book as unknown as { grants: Map<string, unknown> }).grants])).not.toContain(token);
  });

  it('answers once: a second use is refused as used (410), as is any peek after', () => {
    const book = new LinkBook();
    const token = book.issue({ approvalId: 'ap-1', channel: 'webhook', expiresAt: Date.now() + 60_000 });
    expect(book.use(token).ok).toBe(true);
    expect(book.use(token)).toMatchObject({ ok: false, refusal: { status: 410, code: 'link_used' } });
    expect(book.peek(token)).toMatchObject({ ok: false, refusal: { status: 410, code: 'link_used' } });
  });

  it('can be given back when the answer was not recorded', () => {
    const book = new LinkBook();
    const token = book.issue({ approvalId: 'ap-1', channel: 'webhook', expiresAt: Date.now() + 60_000 });
    const used = book.use(token);
    if (!used.ok) throw new Error('first use refused');
    used.giveBack();
    expect(book.use(token).ok).toBe(true);
  });

  it('expires with its call, and never lives past an hour', () => {
    let now = 1_000_000;
    const book = new LinkBook(() => now);
    const short = book.issue({ approvalId: 'ap-1', channel: 'ntfy', expiresAt: now + 5_000 });
    const long = book.issue({ approvalId: 'ap-2', channel: 'ntfy', expiresAt: now + 24 * 3600_000 });
    now += 5_000;
    expect(book.use(short)).toMatchObject({ ok: false, refusal: { status: 410, code: 'link_expired' } });
    expect(book.peek(long).ok).toBe(true);
    now += MAX_LINK_TTL_MS;
    expect(book.peek(long)).toMatchObject({ ok: false, refusal: { status: 410, code: 'link_expired' } });
  });

  it('refuses a token it never issued, or one that is not a token at all, as unknown (404)', () => {
    const book = new LinkBook();
    book.issue({ approvalId: 'ap-1', channel: 'ntfy', expiresAt: Date.now() + 60_000 });
    for (const t of ['A'.repeat(43), '', 'x', 42, null, '../../etc']) expect(book.peek(t)).toMatchObject({ ok: false, refusal: { status: 404, code: 'unknown_link' } });
  });
});
