// The embedded terminal: one xterm.js instance attached to one PTY session at a time,
// fed from `pty.output`, typing into `pty.input`, sized to its box, resynced by `pty.attach`.
import { Terminal } from '@xterm/xterm';
import { FlowControlConstants } from '../protocol/flow-control.js';
import { decodeBase64, encodeBinaryString } from './base64.js';
import { fitTerminal, PHONE_MIN_COLS } from './fit.js';
import { formatExit } from './format.js';
import type { RpcClient } from './rpc-client.js';
import type { AttachResult, PtyExit, PtyOutput } from './wire.js';

/**
 * Acknowledge output in steps of this many characters, once xterm has parsed them: the
 * protocol's ack size, which is at most the low watermark or a paused PTY would never resume.
 */
export const ACK_CHARS = FlowControlConstants.CharCountAckSize;
/** Typed or pasted text goes out in pieces well under the gateway's 64 KiB frame cap. */
const INPUT_CHUNK_CHARS = 16 * 1024;
/** The terminal's font size whenever its columns fit at it (CSS px). */
const FONT_PX = 13;
/** The phone layout's breakpoint: the same width as the `@media` rule in styles.css. */
const NARROW_QUERY = '(max-width: 699px)';

/** What the terminal reports to the page (title bar, errors). */
export interface TerminalEvents {
  onStatus: (text: string) => void;
  /** Shift+Esc: the one key the terminal does not pass to the program, to move focus out. */
  onLeave: () => void;
}

/**
 * Owns the xterm instance and which session it shows.
 * @example const tv = new TerminalView(el, rpc, { onStatus, onLeave }); await tv.attach(id)
 */
export class TerminalView {
  readonly term: Terminal;
  readonly #host: HTMLElement;
  readonly #rpc: RpcClient;
  readonly #events: TerminalEvents;
  #sessionId: string | null = null;
  /** Bumped by every attach, so an answer for a session no longer shown is ignored. */
  #generation = 0;
  /** Output that arrived while an attach was in flight; applied after its screen. */
  #buffered: PtyOutput[] | null = null;
  /** The last output chunk applied, and the last one the replayed screen included. */
  #seq = 0;
  #attachSeq = 0;
  #unacked = 0;
  /** The geometry last sent with `pty.resize` for this session. */
  #sentSize = '';
  #exited = false;
  #fitQueued = false;
  /** On a narrow screen: shrink the font to fit the PTY's columns (true) or scroll them sideways. */
  #fitWidth = true;
  readonly #narrow = matchMedia(NARROW_QUERY);

  constructor(host: HTMLElement, rpc: RpcClient, events: TerminalEvents) {
    this.#host = host;
    this.#rpc = rpc;
    this.#events = events;
    this.term = new Terminal({
      cursorBlink: true,
      fontFamily: '"DejaVu Sans Mono", "Cascadia Mono", Menlo, Consolas, monospace',
      fontSize: FONT_PX,
      scrollback: 5_000,
      theme: { background: '#0f1115', foreground: '#d6d9de', cursor: '#f0c674', selectionBackground: '#3a4250' },
    });
    this.term.open(host);
    this.term.onData((data) => this.#input(data, false));
    this.term.onBinary((data) => this.#input(encodeBinaryString(data), true));
    this.term.attachCustomKeyEventHandler((ev) => {
      if (ev.key !== 'Escape' || !ev.shiftKey) return true;
      if (ev.type === 'keydown') this.#events.onLeave();
      return false;
    });
    new ResizeObserver(() => this.#queueFit()).observe(host);
    this.#narrow.addEventListener('change', () => this.#queueFit());
  }

  /** On a narrow screen, fit the PTY's columns to the width with a smaller font (true), or keep the font and scroll sideways. */
  setFitWidth(on: boolean): void {
    this.#fitWidth = on;
    this.#queueFit();
  }

  /** The session shown, or null. */
  get sessionId(): string | null {
    return this.#sessionId;
  }

  /** Columns and rows that fit the box now (for `pty.spawn`), or the current ones. */
  geometry(): { cols: number; rows: number } {
    const g = this.#measure(false);
    return g === null ? { cols: this.term.cols, rows: this.term.rows } : { cols: g.cols, rows: g.rows };
  }

  /** Scrolls the terminal into view where the page scrolls (the phone layout: it ends the page, one screen tall). */
  reveal(): void {
    if (this.#narrow.matches) this.#host.scrollIntoView({ block: 'end' });
  }

  /** Gives keyboard focus to the terminal. */
  focus(): void {
    this.term.focus();
  }

  /**
   * Shows `sessionId`, taking control of it: replays the server-held screen, then live
   * output. Called again on reconnect or after a gap, it resyncs the same way.
   */
  async attach(sessionId: string): Promise<void> {
    const generation = ++this.#generation;
    this.#release(sessionId);
    this.#sessionId = sessionId;
    this.#buffered = [];
    this.#exited = false;
    this.#unacked = 0;
    let result: AttachResult;
    try {
      result = await this.#rpc.call<AttachResult>('pty.attach', { session_id: sessionId, control: true });
    } catch (err) {
      if (generation === this.#generation) {
        this.#buffered = null;
        this.#events.onStatus(`could not attach: ${(err as Error).message}`);
      }
      throw err;
    }
    if (generation !== this.#generation) return;
    const pending = this.#buffered;
    this.#buffered = null;
    this.#seq = result.seq;
    this.#attachSeq = result.seq;
    this.#sentSize = '';
    this.term.reset();
    if (result.truncated) this.term.write('\x1b[2m[older output not shown]\x1b[0m\r\n');
    this.term.write(result.scrollback);
    for (const o of pending) this.#apply(o);
    this.#events.onStatus('');
    this.#fitNow();
  }

  /** Stops showing any session. */
  detach(): void {
    this.#generation++;
    this.#release(null);
    this.#sessionId = null;
    this.#buffered = null;
    this.term.reset();
  }

  /**
   * Stops watching the session shown until now, unless it stays shown: a controller that
   * ignored its output would never acknowledge it, and the gateway would pause that PTY.
   */
  #release(next: string | null): void {
    const prev = this.#sessionId;
    if (prev === null || prev === next) return;
    this.#rpc.call('pty.detach', { session_id: prev }).catch(() => {});
  }

  /** Handles a `pty.output` event (for any session; others are ignored). */
  output(o: PtyOutput): void {
    if (o.session_id !== this.#sessionId) return;
    if (this.#buffered !== null) this.#buffered.push(o);
    else this.#apply(o);
  }

  /** Handles a `pty.exit` event: notes it in the terminal and stops sending input. */
  exited(sessionId: string, exit: PtyExit): void {
    if (sessionId !== this.#sessionId || this.#exited) return;
    this.#exited = true;
    this.term.write(`\r\n\x1b[2m[process ended: ${formatExit(exit)}]\x1b[0m\r\n`);
  }

  #apply(o: PtyOutput): void {
    const bytes = typeof o.data === 'string' ? decodeBase64(o.data) : o.data;
    if (o.seq <= this.#attachSeq) {
      // In the replayed screen already; still delivered, so still acknowledged, or the
      // gateway would count it as unparsed for as long as we control the session.
      this.#parsed(bytes.length);
      return;
    }
    if (o.seq > this.#seq + 1) {
      // A viewer's queue overflowed and whole chunks were dropped: rebuild from the server's screen.
      const id = this.#sessionId;
      if (id !== null) this.attach(id).catch(() => {});
      return;
    }
    // Equal seqs are the frames of one large chunk, in order.
    this.#seq = o.seq;
    this.term.write(bytes, () => this.#parsed(bytes.length));
  }

  #parsed(chars: number): void {
    this.#unacked += chars;
    if (this.#unacked < ACK_CHARS || this.#sessionId === null) return;
    const acked = this.#unacked;
    this.#unacked = 0;
    this.#rpc.notify('pty.ack', { session_id: this.#sessionId, chars: acked });
  }

  #input(data: string, base64: boolean): void {
    const id = this.#sessionId;
    if (id === null || this.#exited) return;
    for (let at = 0; at < data.length; at += INPUT_CHUNK_CHARS) {
      const piece = data.slice(at, at + INPUT_CHUNK_CHARS);
      const params = base64 ? { session_id: id, data: piece, base64: true } : { session_id: id, data: piece };
      this.#rpc.call('pty.input', params).catch((err: Error) => this.#events.onStatus(`input not delivered: ${err.message}`));
    }
  }

  /**
   * The geometry and font for the box now. Cell size from the rendered screen: xterm sizes
   * `.xterm-screen` to exactly cols × rows cells. With `keepFont`, at the font shown now.
   */
  #measure(keepFont: boolean): { cols: number; rows: number; fontPx: number } | null {
    const screen = this.#host.querySelector('.xterm-screen');
    if (screen === null) return null;
    const r = screen.getBoundingClientRect();
    const cell = { width: r.width / this.term.cols, height: r.height / this.term.rows };
    const style = getComputedStyle(this.#host);
    const box = {
      width: this.#host.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight),
      height: this.#host.clientHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom),
    };
    const fontPx = this.term.options.fontSize ?? FONT_PX;
    const narrow = this.#narrow.matches;
    return fitTerminal(box, cell, { fontPx, baseFontPx: keepFont ? fontPx : FONT_PX, minCols: narrow ? PHONE_MIN_COLS : 0, shrink: narrow && this.#fitWidth && !keepFont });
  }

  #queueFit(): void {
    if (this.#fitQueued) return;
    this.#fitQueued = true;
    requestAnimationFrame(() => {
      this.#fitQueued = false;
      this.#fitNow();
    });
  }

  #fitNow(): void {
    let g = this.#measure(false);
    if (g === null) return;
    if (g.fontPx !== this.term.options.fontSize) {
      this.term.options.fontSize = g.fontPx;
      // Cells do not scale exactly with the font: count the rows as they are drawn now.
      g = { ...g, rows: this.#measure(true)?.rows ?? g.rows };
    }
    if (g.cols !== this.term.cols || g.rows !== this.term.rows) this.term.resize(g.cols, g.rows);
    const id = this.#sessionId;
    const size = `${g.cols}x${g.rows}`;
    if (id === null || this.#exited || this.#buffered !== null || size === this.#sentSize) return;
    this.#sentSize = size;
    this.#rpc.call('pty.resize', { session_id: id, cols: g.cols, rows: g.rows }).catch(() => {});
  }
}
