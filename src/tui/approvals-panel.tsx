// The `gatehouse tui` panel: pending tool-call approvals, live, with keys to allow,
// reject (with a reason) or always allow the selected one (this session, or the project) as the local user, whose whole call and always-scope it shows.
import { useEffect, useRef } from 'react';
import { Box, Text, useApp, useInput } from 'ink';
import type { Key } from 'ink';
import type { Principal } from '../core/approvals/principal.js';
import type { ApprovalDecision, ApprovalQueue, PendingApproval } from '../runtime/approvals/index.js';
import { ApprovalRow } from './approval-row.js';
import { CommandDetail, detailLayout } from './command-detail.js';
import { stripControl } from './format.js';
import { listWindow, useTerminalSize } from './list-window.js';
import { AlwaysScopeLine, EmptyState, KeyHelp, ReasonPrompt, StatusLine, statusShown, WhyLine } from './panel-lines.js';
import type { PanelStatus } from './panel-lines.js';
import { usePending } from './use-pending.js';
import { useSyncedState } from './use-synced-state.js';

/**
 * Longest reject reason the prompt takes. The queue keeps 2,000 characters and cuts the
 * rest; stopping the input there shows the user what will be kept.
 */
const MAX_REASON_INPUT_CHARS = 2000;
/** Lines around the list: header, "more above", "more below", why the person is asked, what "always" allows (up to three when it wraps), status or prompt (two when it wraps), key help, and one spare. */
const CHROME_ROWS = 11;
/** Each approval takes two lines. */
const ROWS_PER_ITEM = 2;

const DONE: Record<ApprovalDecision, string> = { allow: 'allowed', reject: 'rejected', always: 'always allowed (this session)', 'always-project': 'always allowed (this and later sessions)' };

/** Browsing the list, or typing the reason for rejecting approval `id`. */
type Mode = { kind: 'browse' } | { kind: 'reason'; id: string; text: string };
/**
 * The selected item by id (undefined until the first item is shown); `index` is where
 * the selection lands if that item goes away.
 */
type Selection = { id: string | undefined; index: number };
/** The first line of the selected call's whole summary on screen; it starts at 0 for each call. */
type Scroll = { id: string | undefined; offset: number };
type UiState = { mode: Mode; selection: Selection; status: PanelStatus | undefined; scroll: Scroll };

const INITIAL: UiState = { mode: { kind: 'browse' }, selection: { id: undefined, index: 0 }, status: undefined, scroll: { id: undefined, offset: 0 } };

export interface ApprovalsPanelProps {
  queue: ApprovalQueue;
  /** Who is deciding: recorded with every resolution. */
  principal: Principal;
  /** Clock for "time left"; pass the queue's clock in tests. Default: the system clock. */
  now?: () => Date;
}

/** The default clock; module-level so its identity is stable across renders. */
function systemClock(): Date {
  return new Date();
}

/** The selected index: the selected item's, else the old position clamped to the list. */
function selectedIndex(items: readonly PendingApproval[], selection: Selection): number {
  const found = items.findIndex((item) => item.id === selection.id);
  if (found >= 0) return found;
  return Math.max(0, Math.min(selection.index, items.length - 1));
}

/**
 * Lists pending approvals live and resolves the selected one from the keyboard.
 * @example render(<ApprovalsPanel queue={new ApprovalQueue(projectState)} principal={who} />) // who: from osUserPrincipal
 */
export function ApprovalsPanel({ queue, principal, now = systemClock }: ApprovalsPanelProps) {
  const { exit } = useApp();
  const { items, nowMs, refresh } = usePending(queue, now);
  const [ui, setUi, getUi] = useSyncedState<UiState>(INITIAL);
  // Key handlers read the list through a ref, like the UI state, so a burst of keys
  // acts on what is on screen now.
  const latestItems = useRef(items);
  latestItems.current = items;
  const { rows, columns } = useTerminalSize();

  // Pin the selection to the first item shown, so that if it is then resolved elsewhere
  // the panel notices the switch instead of acting on whatever slid into its place.
  const selected = selectedIndex(items, ui.selection);
  const shownId = items[selected]?.id;
  useEffect(() => {
    const state = getUi();
    if (state.selection.id === undefined && shownId !== undefined) setUi({ ...state, selection: { id: shownId, index: selected } });
  }, [shownId, selected, getUi, setUi]);

  // The selected call's whole summary, when its row cuts it; the key handler reads the
  // layout on screen now through a ref, like the list.
  const detail = detailLayout(items[selected], columns, rows - CHROME_ROWS);
  const maxOffset = detail === null ? 0 : detail.lines.length - detail.rows;
  const offset = ui.scroll.id === shownId ? Math.min(ui.scroll.offset, maxOffset) : 0;
  const latestDetail = useRef({ id: shownId, page: detail?.rows ?? 0, maxOffset });
  latestDetail.current = { id: shownId, page: detail?.rows ?? 0, maxOffset };

  // `nonce`: the one of the request on screen, so an answer never lands on a record replaced under the cursor.
  const decide = (id: string, decision: ApprovalDecision, reason?: string, nonce?: string) => {
    const result = queue.resolve(id, { decision, principal, ...(reason ? { reason } : {}), ...(nonce !== undefined ? { nonce } : {}) });
    const atMs = now().getTime();
    const status = result.ok ? { ok: true, message: `${DONE[decision]} ${id}`, atMs } : { ok: false, message: result.error.message, atMs };
    const state = getUi();
    const where = latestItems.current.findIndex((item) => item.id === id);
    const items = refresh();
    latestItems.current = items;
    // Whatever the outcome, the call is out of the list now because of this key, so the one
    // that takes its place is selected on purpose: pin it, or the guard against calls that
    // slide in unseen would refuse the user's next key on it.
    const index = Math.max(0, Math.min(where >= 0 ? where : state.selection.index, items.length - 1));
    setUi({ ...state, mode: { kind: 'browse' }, selection: { id: items[index]?.id, index }, status });
  };

  const onReasonKey = (mode: Extract<Mode, { kind: 'reason' }>, input: string, key: Key) => {
    const state = getUi();
    if (key.escape) {
      setUi({ ...state, mode: { kind: 'browse' }, status: { ok: true, message: `kept ${mode.id} waiting`, atMs: now().getTime() } });
    } else if (key.return) {
      decide(mode.id, 'reject', mode.text.trim());
    } else if (key.backspace || key.delete) {
      setUi({ ...state, mode: { ...mode, text: Array.from(mode.text).slice(0, -1).join('') } });
    } else if (!key.ctrl && !key.meta && input) {
      const text = (mode.text + stripControl(input)).slice(0, MAX_REASON_INPUT_CHARS);
      setUi({ ...state, mode: { ...mode, text } });
    }
  };

  useInput((input, key) => {
    const state = getUi();
    if (state.mode.kind === 'reason') {
      onReasonKey(state.mode, input, key);
      return;
    }
    if (input === 'q') {
      exit();
      return;
    }
    const scroll = key.pageDown || input === ']' ? 1 : key.pageUp || input === '[' ? -1 : 0;
    if (scroll !== 0) {
      const d = latestDetail.current;
      if (d.page === 0) return;
      // From the state, not the screen, so a burst of keys scrolls as far as it was typed.
      const from = state.scroll.id === d.id ? Math.min(state.scroll.offset, d.maxOffset) : 0;
      const next = Math.max(0, Math.min(from + scroll * d.page, d.maxOffset));
      setUi({ ...state, scroll: { id: d.id, offset: next } });
      return;
    }
    const list = latestItems.current;
    const index = selectedIndex(list, state.selection);
    const step = key.upArrow || input === 'k' ? -1 : key.downArrow || input === 'j' ? 1 : 0;
    if (step !== 0) {
      const next = Math.max(0, Math.min(index + step, list.length - 1));
      setUi({ ...state, selection: { id: list[next]?.id, index: next } });
      return;
    }
    const item = list[index];
    if (!item || !'aAPr'.includes(input)) return;
    const pinned = state.selection.id;
    if (pinned !== undefined && pinned !== item.id) {
      // The item the user picked is gone and another one took its place a moment ago:
      // a key meant for the old one must not approve the new one.
      const message = `${pinned} was resolved elsewhere; press ${input} again to act on ${item.id}, now selected`;
      setUi({ ...state, selection: { id: item.id, index }, status: { ok: false, message, atMs: now().getTime() } });
      return;
    }
    if (input === 'A' || input === 'P') {
      // A rule is made for the whole call: it is offered only once all of it has been on screen.
      const d = latestDetail.current;
      // The layout must be this call's: one still of the row before (a key typed ahead of the render) proves nothing.
      const seen = d.id === item.id && (d.maxOffset === 0 || (state.scroll.id === item.id && state.scroll.offset >= d.maxOffset));
      if (!seen) {
        const message = `${input} makes a rule for the whole call, and its end has not been on screen: scroll to it with ] (or PgDn) first`;
        setUi({ ...state, status: { ok: false, message, atMs: now().getTime() } });
        return;
      }
    }
    if (input === 'a') decide(item.id, 'allow', undefined, item.nonce);
    else if (input === 'A') decide(item.id, 'always', undefined, item.nonce);
    else if (input === 'P') decide(item.id, 'always-project', undefined, item.nonce);
    else if (input === 'r') setUi({ ...state, mode: { kind: 'reason', id: item.id, text: '' }, status: undefined });
  });

  const detailHeight = detail === null ? 0 : detail.rows + 1;
  const capacity = Math.max(1, Math.floor((rows - CHROME_ROWS - detailHeight) / ROWS_PER_ITEM));
  const { start, end } = listWindow(items.length, selected, capacity);

  return (
    <Box flexDirection="column">
      <Text bold>
        Gatehouse · {items.length === 0 ? 'no' : items.length} pending approval{items.length === 1 ? '' : 's'}
      </Text>
      {items.length === 0 ? <EmptyState /> : null}
      {start > 0 ? <Text dimColor> … {start} more above</Text> : null}
      {items.slice(start, end).map((item, offset) => (
        <ApprovalRow key={item.id} item={item} selected={start + offset === selected} nowMs={nowMs} />
      ))}
      {end < items.length ? <Text dimColor> … {items.length - end} more below</Text> : null}
      {detail !== null ? <CommandDetail lines={detail.lines} offset={offset} rows={detail.rows} /> : null}
      {ui.mode.kind === 'browse' && items[selected]?.why !== undefined ? <WhyLine why={items[selected].why} /> : null}
      {ui.mode.kind === 'browse' && items[selected] ? <AlwaysScopeLine target={items[selected].always} sessionId={items[selected].session_id} /> : null}
      {ui.mode.kind === 'reason' ? <ReasonPrompt id={ui.mode.id} text={ui.mode.text} /> : null}
      {ui.mode.kind === 'browse' && statusShown(ui.status, nowMs) ? <StatusLine status={ui.status} /> : null}
      {ui.mode.kind === 'browse' && items.length > 0 ? <KeyHelp scroll={detail !== null && detail.lines.length > detail.rows} /> : null}
    </Box>
  );
}
