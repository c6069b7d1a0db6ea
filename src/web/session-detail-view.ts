// One recorded session in a dialog (`sessions.show`): its verdict and evidence id, whether the
// audit log verifies, the timeline of its decisions, and its worktree's changes since its baseline.
// Everything here was written or chosen by the agent: it is set as text, never parsed as HTML.
import { h } from './dom.js';
import type { RpcClient } from './rpc-client.js';
import type { FileDiff, SessionDetail, TimelineEntry } from './wire.js';

/** Where a verdict's word comes from, in words. */
const VERDICT_SOURCE: Record<NonNullable<SessionDetail['verdict']>['source'], string> = {
  audit: 'signed: the audit log’s end-of-session check',
  meta: 'unsigned: only meta.json says so; the audit log records no end-of-session check',
  not_run: 'the command never ran, so nothing was checked',
};

/** What a change's entry says when it shows no text. */
const CHANGE_WORDS: Record<FileDiff['change'], string> = { created: 'created', modified: 'modified', deleted: 'deleted' };

function section(title: string, ...children: (Node | string)[]): HTMLElement {
  return h('section', { class: 'record-section' }, h('h3', {}, title), ...children);
}

function verdictPart(d: SessionDetail): HTMLElement {
  const v = d.verdict;
  if (v === null) return section('Verdict', h('p', { class: 'record-verdict' }, 'No end-of-session check yet.'));
  return section(
    'Verdict',
    h('p', { class: `record-verdict verdict-${v.word === 'passed' ? 'ok' : 'bad'}` }, v.word),
    h('pre', { class: 'record-summary' }, v.summary),
    h('p', { class: 'record-note' }, VERDICT_SOURCE[v.source]),
    v.meta_says === null ? '' : h('p', { class: 'warning' }, `meta.json says ${v.meta_says}; the audit log’s record above is the one that counts (meta.json was changed outside Gatehouse).`),
    h('p', { class: 'record-evidence' }, v.evidence_id === null ? 'No evidence bundle was sealed.' : `Evidence bundle: ${v.evidence_id}`),
  );
}

function auditPart(d: SessionDetail): HTMLElement {
  if (d.audit.verified) return h('p', { class: 'record-audit audit-ok' }, 'Audit log: intact (hash chain, Merkle root and checkpoints verify with the project’s keys).');
  return h('p', { class: 'record-audit warning' }, `Audit log does not verify (${d.audit.problem ?? 'unknown problem'}): these records may have been edited.`);
}

function entry(e: TimelineEntry): HTMLElement {
  return h(
    'li',
    { class: `record-event${e.refused ? ' refused' : ''}`, 'data-type': e.type },
    h('span', { class: 'record-time' }, e.time),
    h('span', { class: 'record-what' }, e.what),
    e.reason === '' ? '' : h('pre', { class: 'record-reason' }, e.reason),
  );
}

function timelinePart(d: SessionDetail): HTMLElement {
  if (d.timeline_total === 0) return section('Timeline', h('p', { class: 'empty' }, 'No decisions recorded yet (refused writes, stops, approvals and the end-of-session check appear here).'));
  const shown = d.timeline.length;
  const head =
    shown === d.timeline_total
      ? `All ${shown} decisions, oldest first.`
      : `The last ${shown} of ${d.timeline_total} decisions, oldest first (gatehouse session show -n ${d.timeline_total} lists them all).`;
  return section('Timeline', h('p', { class: 'record-note' }, head), h('ol', { class: 'record-timeline' }, ...d.timeline.map(entry)));
}

/** A unified diff as lines, each marked added, removed or a hunk header for its colour. */
function diffText(text: string): HTMLElement {
  const lines = text.split('\n').map((line) => {
    const kind = line.startsWith('@@') ? 'hunk' : line.startsWith('+') ? 'add' : line.startsWith('-') ? 'del' : 'ctx';
    return h('span', { class: `diff-${kind}` }, `${line}\n`);
  });
  return h('pre', { class: 'record-diff' }, ...lines);
}

function filePart(f: FileDiff): HTMLElement {
  const body: (Node | string)[] = [];
  if (f.shown === 'text') body.push(diffText(f.diff));
  if (f.truncated) body.push(h('p', { class: 'record-note' }, 'Cut short to fit: the rest of this diff is not shown.'));
  if (f.note !== '') body.push(h('p', { class: 'record-note' }, f.note));
  return h(
    'details',
    { class: 'record-file', 'data-path': f.path, open: f.shown === 'text' },
    h('summary', {}, h('span', { class: `change change-${f.change}` }, CHANGE_WORDS[f.change]), ' ', h('span', { class: 'record-path' }, f.path)),
    ...body,
  );
}

function diffPart(d: SessionDetail): HTMLElement {
  const { files, total, problem } = d.diff;
  if (problem !== null) return section('Changes since the start', h('p', { class: 'record-note' }, problem));
  if (total === 0) return section('Changes since the start', h('p', { class: 'empty' }, 'No file changed since the session started.'));
  const head = `${total} file${total === 1 ? '' : 's'} changed since the session started${files.length < total ? ` (${files.length} listed; gatehouse session check lists all)` : ''}:`;
  return section('Changes since the start', h('p', { class: 'record-note' }, head), ...files.map(filePart));
}

/**
 * Shows a session's record in `dialog`; `openTerminal` attaches the PTY that runs it, when there is one.
 * @example const dv = new SessionDetailView(dialog, body, terminalButton, rpc, (pty) => void open(pty)); await dv.show(id)
 */
export class SessionDetailView {
  readonly #dialog: HTMLDialogElement;
  readonly #body: HTMLElement;
  readonly #terminal: HTMLButtonElement;
  readonly #rpc: RpcClient;
  #pty: string | null = null;

  constructor(dialog: HTMLDialogElement, body: HTMLElement, terminal: HTMLButtonElement, rpc: RpcClient, openTerminal: (ptyId: string) => void) {
    this.#dialog = dialog;
    this.#body = body;
    this.#terminal = terminal;
    this.#rpc = rpc;
    terminal.addEventListener('click', () => {
      if (this.#pty === null) return;
      dialog.close();
      openTerminal(this.#pty);
    });
  }

  /** Opens the dialog on session `id` and fills it when the record arrives; a failure is said in it. */
  async show(id: string): Promise<void> {
    this.#dialog.dataset.session = id;
    this.#pty = null;
    this.#terminal.hidden = true;
    this.#body.replaceChildren(h('p', { class: 'record-note' }, `Reading session ${id}…`));
    if (!this.#dialog.open) this.#dialog.showModal();
    let d: SessionDetail;
    try {
      d = await this.#rpc.call<SessionDetail>('sessions.show', { id });
    } catch (err) {
      if (this.#dialog.dataset.session === id) this.#body.replaceChildren(h('p', { class: 'error' }, `Cannot show session ${id}: ${(err as Error).message}`));
      return;
    }
    // A slower answer for a session no longer shown is dropped.
    if (this.#dialog.dataset.session !== id) return;
    const s = d.session;
    this.#pty = s.pty_id;
    this.#terminal.hidden = s.pty_id === null;
    this.#body.replaceChildren(
      h('p', { class: 'record-head' }, `${s.agent} · ${s.id} · ${s.status}`),
      h('p', { class: 'record-note' }, `started ${s.started_at}${s.ended_at === null ? '' : `, ended ${s.ended_at}`} · ${d.worktree}`),
      s.problem === null ? '' : h('p', { class: 'warning' }, s.problem),
      verdictPart(d),
      auditPart(d),
      timelinePart(d),
      diffPart(d),
    );
  }
}
