// The audit line in the header: whether the hash chain verifies, how much it holds and
// when it was last checkpointed, from `GET /api/audit/status`.
import { formatAge, timeMs } from './format.js';
import type { AuditStatus } from './wire.js';

/** Audit events arrive in bursts (one per hook call); one fetch per burst is plenty. */
const REFRESH_THROTTLE_MS = 2_000;
/** Without events, re-check this often so a tampered log is noticed. */
const POLL_MS = 30_000;

/**
 * Summarises a status for the header.
 * @example describeAudit({ ok: true, events: 12, checkpoints: 1, root: 'ab', last_checkpoint: null, first_bad: null }, Date.now())
 */
export function describeAudit(s: AuditStatus, nowMs: number): { text: string; ok: boolean } {
  if (!s.ok) {
    const where = s.first_bad === null ? '' : ` at event ${s.first_bad}`;
    return { text: `audit: verification FAILED${where} (${s.events} events)`, ok: false };
  }
  const cp = s.last_checkpoint === null ? 'no checkpoint yet' : `checkpoint at ${s.last_checkpoint.tree_size}, ${formatAge(timeMs(s.last_checkpoint.time), nowMs)} ago`;
  return { text: `audit: verified, ${s.events} events, ${cp}`, ok: true };
}

/**
 * Keeps one element showing the audit status. The route needs the access token: the
 * sign-in cookie carries it, or `token()` when the page signed in by typing it.
 * @example const a = new AuditStatusView(el, () => rpc.token); void a.refresh()
 */
export class AuditStatusView {
  readonly #el: HTMLElement;
  readonly #token: () => string | null;
  #last = 0;
  #timer: ReturnType<typeof setTimeout> | null = null;

  constructor(el: HTMLElement, token: () => string | null) {
    this.#el = el;
    this.#token = token;
    setInterval(() => void this.refresh(), POLL_MS);
  }

  /** Fetches now. */
  async refresh(): Promise<void> {
    this.#last = Date.now();
    let text: string;
    let state: 'ok' | 'bad' | 'unknown';
    try {
      const token = this.#token();
      const headers: Record<string, string> = token === null ? { accept: 'application/json' } : { accept: 'application/json', authorization: `Bearer ${token}` };
      const res = await fetch('/api/audit/status', { cache: 'no-store', headers });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      const d = describeAudit((await res.json()) as AuditStatus, Date.now());
      text = d.text;
      state = d.ok ? 'ok' : 'bad';
    } catch {
      text = 'audit: unavailable';
      state = 'unknown';
    }
    this.#el.textContent = text;
    this.#el.dataset.state = state;
  }

  /** Fetches soon, at most once per throttle window (for `audit.*` events). */
  refreshSoon(): void {
    if (this.#timer !== null) return;
    const wait = Math.max(0, this.#last + REFRESH_THROTTLE_MS - Date.now());
    this.#timer = setTimeout(() => {
      this.#timer = null;
      void this.refresh();
    }, wait);
  }
}
