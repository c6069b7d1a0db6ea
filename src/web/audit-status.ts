// The audit line in the header: whether the hash chain verifies, how much it holds and
// when it was last checkpointed, from `GET /api/audit/status`.
import { withProject } from './project-switcher.js';
import { formatAge, timeMs } from './format.js';
import type { AuditProblem, AuditStatus } from './wire.js';

/** Audit events arrive in bursts (one per hook call); one fetch per burst is plenty. */
const REFRESH_THROTTLE_MS = 2_000;
/** Without events, re-check this often so a tampered log is noticed. */
const POLL_MS = 30_000;

/** What to do about a log that does not verify. */
const VERIFY_HINT = 'Run `gatehouse audit verify` in the project to list every problem.';
/** The badge shows this much of a reason; the whole of it is in the tooltip. */
const MAX_REASON_CHARS = 120;

/** Where the first problem is: an event by its seq, or the checkpoints. */
function problemAt(p: AuditProblem): string {
  return p.seq === null ? 'in the checkpoints' : `at event seq ${p.seq}`;
}

/** The first problem, as the server sends it; tolerates a bare seq (older servers) and anything else. */
function asProblem(v: unknown): AuditProblem | null {
  if (typeof v === 'number') return { seq: v, reason: '' };
  if (typeof v !== 'object' || v === null) return null;
  const { seq, reason } = v as Record<string, unknown>;
  return { seq: typeof seq === 'number' ? seq : null, reason: typeof reason === 'string' ? reason : '' };
}

/**
 * Summarises a status for the header: `text` for the badge, `detail` (the whole first
 * problem, with what to do) for its tooltip.
 * @example describeAudit({ ok: false, events: 42, checkpoints: 3, root: 'ab', last_checkpoint: null, first_bad: { seq: 17, reason: 'the hash does not match' } }, Date.now())
 * // { ok: false, text: 'audit: verification FAILED at event seq 17 of 42: the hash does not match', detail: '…' }
 */
export function describeAudit(s: AuditStatus, nowMs: number): { text: string; ok: boolean; detail: string } {
  if (!s.ok) {
    const p = asProblem(s.first_bad);
    // The reason is a sentence of its own; the badge and the tooltip add their own stops.
    if (p !== null) p.reason = p.reason.trim().replace(/\.$/, '');
    if (p === null) return { text: `audit: verification FAILED (${s.events} events)`, ok: false, detail: VERIFY_HINT };
    const reason = p.reason === '' ? '' : `: ${p.reason.length > MAX_REASON_CHARS ? `${p.reason.slice(0, MAX_REASON_CHARS - 1)}…` : p.reason}`;
    const where = p.seq === null ? `${problemAt(p)} (${s.events} events)` : `${problemAt(p)} of ${s.events}`;
    return { text: `audit: verification FAILED ${where}${reason}`, ok: false, detail: `First problem ${problemAt(p)}${p.reason === '' ? '' : `: ${p.reason}`}. ${VERIFY_HINT}` };
  }
  const cp = s.last_checkpoint === null ? 'no checkpoint yet' : `checkpoint at ${s.last_checkpoint.tree_size}, ${formatAge(timeMs(s.last_checkpoint.time), nowMs)} ago`;
  return { text: `audit: verified, ${s.events} events, ${cp}`, ok: true, detail: 'Verified against the keys stored beside the log; `gatehouse audit verify --key` checks it against a key you trust.' };
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
    let detail = '';
    let state: 'ok' | 'bad' | 'unknown';
    try {
      const token = this.#token();
      const headers: Record<string, string> = token === null ? { accept: 'application/json' } : { accept: 'application/json', authorization: `Bearer ${token}` };
      const res = await fetch(withProject('/api/audit/status'), { cache: 'no-store', headers });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      const d = describeAudit((await res.json()) as AuditStatus, Date.now());
      text = d.text;
      detail = d.detail;
      state = d.ok ? 'ok' : 'bad';
    } catch {
      text = 'audit: unavailable';
      state = 'unknown';
    }
    this.#el.textContent = text;
    this.#el.title = detail;
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
