// The doctor line in the header: the last `gatehouse doctor` result per agent (did each claimed
// gate fire on this machine?), from `GET /api/doctor`. Read-only; hidden until doctor has run.
import { h } from './dom.js';
import { formatAge, timeMs } from './format.js';
import { withProject } from './project-switcher.js';
import type { DoctorSummary } from '../runtime/doctor/agent-report.js';

/** What to do to see it fresh. */
const RUN_HINT = 'Run `gatehouse doctor` to check again.';

/** One agent's word: BROKEN when a claimed gate is, else ok (with the version when it is not the tested one). */
function agentWord(a: DoctorSummary): { text: string; ok: boolean } {
  const broken = Object.entries(a.gates).filter(([, state]) => state === 'BROKEN');
  if (broken.length > 0) return { text: `${a.agent} BROKEN`, ok: false };
  return { text: a.tested === false ? `${a.agent} ok (untested ${a.version ?? '?'})` : `${a.agent} ok`, ok: true };
}

/**
 * Summarises stored results for the header, or null when doctor never ran.
 * @example describeDoctor([{ agent: 'codex', checked_at: '2025-06-01T11:00:00Z', version: '0.171.0', tested: true, gates: { write_gate: 'BROKEN' } }], now)
 * // { ok: false, agents: [{ text: 'codex BROKEN', ok: false }], text: 'doctor: codex BROKEN, 1h ago', detail: 'codex 0.171.0: write_gate BROKEN …' }
 */
export function describeDoctor(agents: readonly DoctorSummary[], nowMs: number): { ok: boolean; text: string; detail: string; agents: { text: string; ok: boolean }[] } | null {
  if (agents.length === 0) return null;
  const words = agents.map(agentWord);
  const oldest = Math.min(...agents.map((a) => timeMs(a.checked_at)));
  const detail = agents.map(
    (a) =>
      `${a.agent} ${a.version ?? '?'}: ${
        Object.entries(a.gates)
          .map(([gate, state]) => `${gate} ${state}`)
          .join(', ') || 'not run'
      } (checked ${a.checked_at})`,
  );
  return {
    ok: words.every((w) => w.ok),
    agents: words,
    text: `doctor: ${words.map((w) => w.text).join(', ')}, ${formatAge(oldest, nowMs)} ago`,
    detail: `${detail.join('\n')}\n${RUN_HINT}`,
  };
}

/**
 * Keeps one header element showing the doctor results; the route needs the access token, as the audit line's does.
 * @example const d = new DoctorStatusView(el, () => rpc.token); void d.refresh()
 */
export class DoctorStatusView {
  readonly #el: HTMLElement;
  readonly #token: () => string | null;

  constructor(el: HTMLElement, token: () => string | null) {
    this.#el = el;
    this.#token = token;
  }

  /** Fetches now; stays hidden when doctor never ran or the route is unavailable. */
  async refresh(): Promise<void> {
    let d: ReturnType<typeof describeDoctor> = null;
    try {
      const token = this.#token();
      const headers: Record<string, string> = token === null ? { accept: 'application/json' } : { accept: 'application/json', authorization: `Bearer ${token}` };
      const res = await fetch(withProject('/api/doctor'), { cache: 'no-store', headers });
      if (res.ok) d = describeDoctor(((await res.json()) as { agents: DoctorSummary[] }).agents, Date.now());
    } catch {
      d = null;
    }
    this.#el.hidden = d === null;
    if (d === null) return;
    const parts = d.agents.flatMap((a, i) => [...(i > 0 ? [', '] : []), h('span', { 'data-state': a.ok ? 'ok' : 'bad' }, a.text)]);
    this.#el.replaceChildren('doctor: ', ...parts, d.text.slice(d.text.lastIndexOf(',')));
    this.#el.title = d.detail;
    this.#el.dataset.state = d.ok ? 'ok' : 'bad';
  }
}
