// The dashboard's entry point: connects to the gateway's `/ws`, wires the views together
// and routes the gateway's events to them. Bundled by scripts/build-web.mjs.
import { adoptInlineStyles } from './adopt-styles.js';
import { ApprovalsView } from './approvals-view.js';
import { Attention } from './attention.js';
import { RulesView } from './rules-view.js';
import { AuditStatusView } from './audit-status.js';
import { DoctorStatusView } from './doctor-status.js';
import { byId, h } from './dom.js';
import { installFitToggle } from './fit-toggle.js';
import { formatExit, sessionTitle } from './format.js';
import { NewSessionForm } from './new-session-form.js';
import { ProjectSwitcher, withProject } from './project-switcher.js';
import type { ConnectionState } from './rpc-client.js';
import { RpcClient } from './rpc-client.js';
import { SessionDetailView } from './session-detail-view.js';
import { SessionRecordsView } from './session-records-view.js';
import { SessionsView } from './sessions-view.js';
import { exchangeToken } from './sign-in.js';
import { installShortcuts, SHORTCUTS } from './shortcuts.js';
import { TerminalView } from './terminal-view.js';
import { TeamView } from './team-view.js';
import type { PendingApproval, PtyExit, PtyInfo, SpawnParams } from './wire.js';
import { asEventParams, asPtyExit, asPtyInfo, asPtyOutput } from './wire.js';

/** Everything the page shows live. */
const TOPICS = ['pty.*', 'approvals.*', 'audit.*'];
/** After a PTY's exit, when the sessions are listed again: a gated one's end-of-session check runs just after it. */
const RECORDS_SETTLE_MS = 1_500;
/** After a queue change, when the rules are listed again: the waiting hook adds an "always" rule within milliseconds of the answer. */
const RULES_SETTLE_MS = 500;

/** The `/ws` endpoint of the server that served this page, for the page's project. */
function wsUrl(): string {
  const u = new URL(withProject('/ws'));
  u.protocol = u.protocol === 'https:' ? 'wss:' : 'ws:';
  return u.href;
}

/**
 * Reads the fragment: `#token=…` (a sign-in that never reaches a server log; removed from
 * the address bar at once) and `#session=…` (the session to show, so a reload resumes it).
 */
function readFragment(): { token: string | null; session: string | null } {
  const params = new URLSearchParams(location.hash.slice(1));
  const token = params.get('token');
  if (token !== null) {
    params.delete('token');
    const rest = params.toString();
    history.replaceState(null, '', rest === '' ? `${location.pathname}${location.search}` : `${location.search}#${rest}`);
  }
  return { token, session: params.get('session') };
}

/** `pty.list` answers with the sessions, bare or as `{sessions}`. */
function sessionList(v: unknown): PtyInfo[] {
  const list = Array.isArray(v) ? v : typeof v === 'object' && v !== null ? (v as { sessions?: unknown }).sessions : [];
  return Array.isArray(list) ? list.flatMap((i) => asPtyInfo(i) ?? []) : [];
}

function main(): void {
  // Before xterm exists: its <style> elements must become constructed sheets under our CSP.
  adoptInlineStyles(document);
  const conn = byId('conn', HTMLElement);
  const signIn = byId('signin', HTMLFormElement);
  const termTitle = byId('term-title', HTMLElement);
  const termStatus = byId('term-status', HTMLElement);
  const closeButton = byId('close-session', HTMLButtonElement);
  const help = byId('help-dialog', HTMLDialogElement);
  const closeDialog = byId('close-dialog', HTMLDialogElement);

  const fragment = readFragment();
  // A `#token=` is traded for the cookie before the first connection (see signInWith).
  const rpc = new RpcClient({ url: wsUrl(), token: null, onReady, onNotification, onState });
  const sessions = new SessionsView(
    byId('sessions', HTMLUListElement),
    (id) => void open(id),
    (sessionId) => void detail.show(sessionId),
  );
  const records = new SessionRecordsView(byId('records', HTMLUListElement), byId('records-count', HTMLElement), rpc, (id) => void detail.show(id));
  const detail = new SessionDetailView(byId('record-dialog', HTMLDialogElement), byId('record-body', HTMLElement), byId('record-terminal', HTMLButtonElement), rpc, (pty) => void open(pty));
  const terminal = new TerminalView(byId('terminal', HTMLDivElement), rpc, {
    onStatus: (text) => (termStatus.textContent = text),
    onLeave: () => sessions.focus(),
  });
  installFitToggle(byId('fit-width', HTMLButtonElement), localStorage, (on) => terminal.setFitWidth(on));
  const approvals = new ApprovalsView(byId('approvals', HTMLUListElement), byId('approvals-count', HTMLElement), rpc);
  const attention = new Attention(byId('notify-bell', HTMLButtonElement), byId('notify-sound', HTMLInputElement));
  approvals.onShown = (pending, omitted) => attention.update(pending, omitted);
  const rules = new RulesView(byId('rules', HTMLUListElement), byId('rules-status', HTMLElement), rpc);
  // Opening the list shows it as it is now, whoever changed it (the CLI, the TUI, another page).
  byId('rules-panel', HTMLDetailsElement).addEventListener('toggle', () => void rules.refresh());
  const audit = new AuditStatusView(byId('audit', HTMLElement), () => rpc.token);
  const doctor = new DoctorStatusView(byId('doctor', HTMLElement), () => rpc.token);
  const team = new TeamView(byId('team-panel', HTMLElement), byId('team-sessions', HTMLUListElement), byId('team-approvals', HTMLUListElement), byId('team-status', HTMLElement), () => rpc.token);
  // Shown only when the server supervises several projects (`serve --all`).
  const projects = new ProjectSwitcher(byId('project', HTMLSelectElement), () => rpc.token);
  const form = new NewSessionForm(
    spawn,
    () => terminal.geometry(),
    () => terminal.focus(),
  );

  function showTitle(): void {
    const id = terminal.sessionId;
    const info = id === null ? undefined : sessions.get(id);
    closeButton.disabled = info === undefined || info.state !== 'running';
    if (info === undefined) {
      termTitle.textContent = 'No session attached: select one and press Enter, or press n for a new one.';
      return;
    }
    const exit = formatExit(info.exit);
    termTitle.textContent = `${sessionTitle(info)} · ${info.state}${exit === '' ? '' : ` · ${exit}`} · ${info.cwd}`;
  }

  /** Shows session `id` in the terminal; `reveal` scrolls the terminal into view on the phone layout, where it is below the lists. */
  async function open(id: string, reveal = true): Promise<void> {
    sessions.select(id);
    sessions.setAttached(id);
    history.replaceState(null, '', `${location.search}#session=${encodeURIComponent(id)}`);
    const attaching = terminal.attach(id);
    showTitle();
    if (reveal) terminal.reveal();
    try {
      await attaching;
    } catch {
      return; // the terminal's status line says why
    }
    const info = sessions.get(id);
    if (info?.exit) terminal.exited(id, info.exit);
    terminal.focus();
  }

  async function spawn(params: SpawnParams): Promise<void> {
    const info = await rpc.call<PtyInfo>('pty.spawn', params);
    sessions.upsert(info);
    await open(info.id);
  }

  async function onReady(): Promise<void> {
    // Output as binary messages: no base64 to decode, a quarter fewer bytes on the wire.
    await rpc.call('events.subscribe', { topics: TOPICS, output: 'binary' });
    const [list] = await Promise.all([rpc.call<unknown>('pty.list'), approvals.refresh(), rules.refresh(), records.refresh()]);
    sessions.setAll(sessionList(list));
    // Resume where we were (after a reconnect, or a reload with #session=): the server's
    // screen replaces whatever the old connection missed.
    const shown = terminal.sessionId ?? fragment.session;
    fragment.session = null;
    if (shown !== null && sessions.get(shown) !== undefined) {
      // A reload resumes the session without scrolling a phone's page away from the approvals.
      if (terminal.sessionId === null) void open(shown, false);
      else await terminal.attach(shown);
    } else if (terminal.sessionId !== null) {
      terminal.detach();
      sessions.setAttached(null);
      history.replaceState(null, '', `${location.pathname}${location.search}`);
    }
    showTitle();
    void audit.refresh();
    void doctor.refresh();
    void team.refresh();
  }

  function ended(id: string, exit: PtyExit): void {
    sessions.ended(id, exit);
    terminal.exited(id, exit);
    showTitle();
  }

  function onNotification(method: string, params: unknown): void {
    const e = method === 'event' ? asEventParams(params) : null;
    if (e === null) return;
    const data = e.data as Record<string, unknown> | null;
    if (e.topic === 'pty.output') {
      const o = asPtyOutput(e.data);
      if (o !== null) terminal.output(o);
    } else if (e.topic === 'pty.exit') {
      const x = asPtyExit(e.data);
      if (x !== null) ended(x.session_id, { exit_code: x.exit_code, signal: x.signal, reason: x.reason });
      if (x !== null && sessions.get(x.session_id)?.gatehouse_session !== undefined) setTimeout(() => void records.refresh(), RECORDS_SETTLE_MS);
    } else if (e.topic === 'pty.spawned') {
      const info = asPtyInfo(data?.info);
      if (info !== null) sessions.upsert(info);
      if (info?.gatehouse_session !== undefined) void records.refresh();
    } else if (e.topic === 'approvals.changed') {
      if (Array.isArray(data?.pending)) approvals.setAll(data.pending as PendingApproval[], typeof data.omitted === 'number' ? data.omitted : 0);
      // An "always" answer's rule is written by the waiting hook just after the answer.
      setTimeout(() => void rules.refresh(), RULES_SETTLE_MS);
    } else if (e.topic.startsWith('audit.')) {
      audit.refreshSoon();
    }
  }

  /** Why the last pasted token was refused; shown instead of the generic text until a sign-in works. */
  let refusal: string | null = null;

  /** Whether the project list was asked for: once the socket is up (signed in), or refused (a server of several projects, none chosen yet). */
  let projectsAsked = false;

  function onState(state: ConnectionState, detail: string): void {
    if (state === 'ready') refusal = null;
    if (!projectsAsked && (state === 'ready' || state === 'offline')) {
      projectsAsked = true;
      void projects.load();
    }
    const text: Record<ConnectionState, string> = {
      connecting: 'connecting…',
      ready: 'connected',
      offline: `offline (${detail}): reconnecting`,
      unauthorized: refusal ?? detail,
    };
    conn.dataset.state = state;
    // A refused connection retries every few seconds: keep the sign-in (and what it said) up
    // through those retries, so a token being typed or pasted is not cut off.
    if (state === 'connecting' && !signIn.hidden) return;
    conn.textContent = text[state];
    signIn.hidden = state !== 'unauthorized';
  }

  /**
   * Trades a token for the HttpOnly cookie, then (re)connects with the cookie alone, so a
   * reload stays signed in. Unreachable server: use the token for this page only.
   */
  async function signInWith(token: string): Promise<void> {
    const outcome = await exchangeToken(token);
    if (outcome.kind === 'refused') {
      refusal = outcome.reason;
      onState('unauthorized', outcome.reason);
      return;
    }
    rpc.signIn(outcome.kind === 'signed_in' ? null : token);
  }

  signIn.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const input = signIn.elements.namedItem('token');
    if (!(input instanceof HTMLInputElement) || input.value.trim() === '') return;
    const token = input.value.trim();
    input.value = '';
    void signInWith(token);
  });
  // Closing ends a running program (an agent mid-task included): ask first, with "keep" as the default.
  closeButton.addEventListener('click', () => {
    const id = terminal.sessionId;
    const info = id === null ? undefined : sessions.get(id);
    if (id === null || info === undefined) return;
    closeDialog.dataset.session = id;
    byId('close-text', HTMLElement).textContent =
      `${sessionTitle(info)} (pid ${info.pid}) is still running. Closing hangs up its terminal and ends it, and whatever it is doing stops; an agent under a gate then gets its end-of-session check.`;
    closeDialog.returnValue = '';
    closeDialog.showModal();
  });
  closeDialog.addEventListener('close', () => {
    const id = closeDialog.dataset.session;
    delete closeDialog.dataset.session;
    if (closeDialog.returnValue !== 'close' || id === undefined) return;
    rpc.call('pty.close', { session_id: id }).catch((err: Error) => (termStatus.textContent = err.message));
  });
  byId('new-session', HTMLButtonElement).addEventListener('click', () => form.open());
  byId('help-button', HTMLButtonElement).addEventListener('click', () => help.showModal());
  byId('help-keys', HTMLElement).replaceChildren(...SHORTCUTS.flatMap((s) => [h('dt', {}, h('kbd', {}, s.keys)), h('dd', {}, s.what)]));

  // A dialog closed without moving focus anywhere (Esc, Cancel) hands the keyboard back to the list.
  for (const dialog of document.querySelectorAll('dialog')) {
    dialog.addEventListener('close', () => {
      if (document.activeElement === null || document.activeElement === document.body) sessions.focus();
    });
  }

  installShortcuts(document, {
    newSession: () => form.open(),
    move: (delta) => sessions.move(delta),
    openSelected: () => {
      // Nothing selected yet (a fresh page): Enter takes the attached or newest session.
      if (sessions.selected === null) sessions.selectDefault();
      const id = sessions.selected;
      if (id !== null) void open(id);
    },
    focusTerminal: () => terminal.focus(),
    focusApprovals: () => {
      if (!approvals.focusFirst()) byId('approvals-heading', HTMLElement).scrollIntoView();
    },
    focusSessions: () => sessions.focus(),
    help: () => help.showModal(),
  });

  showTitle();
  if (fragment.token === null) rpc.start();
  else void signInWith(fragment.token);
  sessions.focus();
}

main();
