// Gets a person's attention when a call starts waiting for them: the tab title counts the
// waiting calls, and, when they allow it, a system notification (and an optional sound) for
// each new one while the tab is not in front. Nothing here answers anything.
// The same one line a phone notification carries: masked, and cut to a lock screen's length.
import { oneLine } from '../core/notify/message.js';
import type { PendingApproval } from './wire.js';

/** The page title with nothing waiting. */
const TITLE = 'Gatehouse';
/** Where the sound choice is kept: one browser, one choice. */
const SOUND_KEY = 'gatehouse.sound';

/** The tab title for `count` waiting calls. */
function attentionTitle(count: number): string {
  return count > 0 ? `(${count}) ${TITLE}: approval needed` : TITLE;
}

/** A short two-tone chime, made on the spot (no audio file to fetch). */
function chime(): void {
  const Ctx = window.AudioContext;
  if (Ctx === undefined) return;
  const ctx = new Ctx();
  const start = ctx.currentTime;
  for (const [i, freq] of [880, 1320].entries()) {
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    osc.frequency.value = freq;
    gain.gain.setValueAtTime(0.15, start + i * 0.15);
    gain.gain.exponentialRampToValueAtTime(0.001, start + i * 0.15 + 0.14);
    osc.connect(gain).connect(ctx.destination);
    osc.start(start + i * 0.15);
    osc.stop(start + i * 0.15 + 0.15);
  }
  setTimeout(() => void ctx.close(), 600);
}

/**
 * The attention controls: `bell` asks the browser for permission to notify, `sound` turns
 * the chime on or off. {@link Attention.update} is called with every queue the page shows.
 */
export class Attention {
  #seen: Set<string> | null = null;
  readonly #bell: HTMLButtonElement;
  readonly #sound: HTMLInputElement;

  constructor(bell: HTMLButtonElement, sound: HTMLInputElement) {
    this.#bell = bell;
    this.#sound = sound;
    sound.checked = localStorage.getItem(SOUND_KEY) === 'on';
    sound.addEventListener('change', () => localStorage.setItem(SOUND_KEY, sound.checked ? 'on' : 'off'));
    bell.addEventListener('click', () => void this.#ask());
    this.#showBell();
  }

  /** Counts `pending` (+ `omitted`) in the title, and tells about calls not seen before. */
  update(pending: readonly PendingApproval[], omitted: number): void {
    document.title = attentionTitle(pending.length + omitted);
    const first = this.#seen === null;
    const seen = this.#seen ?? new Set<string>();
    const fresh = pending.filter((p) => !seen.has(p.id));
    this.#seen = new Set(pending.map((p) => p.id));
    // What was already waiting when the page opened is on the screen: no need to ring for it.
    if (first || fresh.length === 0) return;
    if (this.#sound.checked) chime();
    if (!document.hidden && document.hasFocus()) return;
    if (typeof Notification === 'undefined' || Notification.permission !== 'granted') return;
    for (const p of fresh) {
      const n = new Notification(`Approval needed: ${p.tool}`, { body: `${p.agent}: ${oneLine(p.summary)}`, tag: p.id });
      n.onclick = () => {
        window.focus();
        n.close();
      };
    }
  }

  async #ask(): Promise<void> {
    if (typeof Notification === 'undefined') return;
    if (Notification.permission === 'default') await Notification.requestPermission();
    this.#showBell();
  }

  #showBell(): void {
    const state = typeof Notification === 'undefined' ? 'unsupported' : Notification.permission;
    const label: Record<string, string> = {
      granted: 'Notifications on',
      denied: 'Notifications blocked (allow them in the browser’s site settings)',
      default: 'Notify me',
      unsupported: 'Notifications unavailable here',
    };
    this.#bell.textContent = label[state] ?? 'Notify me';
    this.#bell.disabled = state !== 'default';
    this.#bell.dataset.state = state;
  }
}
