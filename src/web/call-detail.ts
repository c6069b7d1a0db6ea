// The detail of a call a person is asked about, as the dashboard card and the single-use
// approval page show it: a diff (coloured, the first lines with "show all"), a shell call's
// context, or the tool input as formatted JSON. Built from text nodes only.
import { safeForDisplay } from '../core/display.js';
import type { ApprovalDetail } from '../protocol/approvals.js';
import { h } from './dom.js';
import { grammarFor, highlightLine } from './highlight.js';

/** Lines of a diff shown before "Show all": enough for a typical edit, short enough for a phone. */
const DIFF_PREVIEW_LINES = 40;

type DiffFile = Extract<ApprovalDetail, { kind: 'diff' }>['files'][number];

/** One diff line as a row: its op's class, the op, the coloured text. */
function diffLine(line: string, grammar: string | null): HTMLElement {
  if (line.startsWith('@@')) return h('span', { class: 'line hunk' }, line);
  // `\ No newline at end of file`, after the line it is about.
  if (line.startsWith('\\')) return h('span', { class: 'line eol' }, line);
  const op = line[0] ?? ' ';
  const cls = op === '+' ? 'add' : op === '-' ? 'del' : 'ctx';
  return h('span', { class: `line ${cls}` }, h('span', { class: 'op', 'aria-hidden': 'true' }, op), ...highlightLine(line.slice(1), grammar));
}

/** A code block that shows its first {@link DIFF_PREVIEW_LINES} rows and a "Show all" button for the rest. */
function previewed(lines: readonly string[], render: (line: string) => HTMLElement, label: string, cls: string): HTMLElement {
  const pre = h('pre', { class: cls, tabindex: '0', 'aria-label': label });
  const first = lines.slice(0, DIFF_PREVIEW_LINES);
  pre.append(...first.map(render));
  if (lines.length <= DIFF_PREVIEW_LINES) return pre;
  const more = h('button', { type: 'button', class: 'show-all' }, `Show all ${lines.length} lines`);
  more.addEventListener('click', () => {
    pre.append(...lines.slice(DIFF_PREVIEW_LINES).map(render));
    more.remove();
  });
  return h('div', { class: 'previewed' }, pre, more);
}

function diffFile(file: DiffFile): HTMLElement {
  const grammar = grammarFor(file.path);
  const lines = file.diff === '' ? [] : file.diff.replace(/\n$/, '').split('\n');
  const head = h('div', { class: 'diff-head' }, h('code', {}, safeForDisplay(file.path)), h('span', { class: 'counts' }, `+${file.added} −${file.removed}`));
  const body = lines.length === 0 ? h('p', { class: 'note' }, 'No change: the file already holds exactly this.') : previewed(lines, (l) => diffLine(l, grammar), `The change to ${file.path}`, 'diff');
  return h('div', { class: 'diff-file' }, head, file.note === null ? '' : h('p', { class: 'note' }, safeForDisplay(file.note)), body);
}

/** A labelled row of a shell call's context. */
function row(label: string, value: Node | string): HTMLElement[] {
  return [h('dt', {}, label), h('dd', {}, value)];
}

/**
 * The detail as one element, for a card or the approval page.
 * @example card.append(renderDetail({ kind: 'input', json: '{}', truncated: false }))
 */
export function renderDetail(detail: ApprovalDetail): HTMLElement {
  if (detail.kind === 'diff') {
    const cut = detail.truncated ? h('p', { class: 'note' }, 'The diff is longer than a card keeps (40 KiB): the rest is not shown. The summary above gives the sizes of the whole call.') : '';
    return h('div', { class: 'detail diff-detail' }, ...detail.files.map(diffFile), cut);
  }
  if (detail.kind === 'shell') {
    const command = h('pre', { class: 'command', tabindex: '0', 'aria-label': 'The whole command' }, ...highlightLine(safeForDisplay(detail.command), 'shell'));
    return h(
      'dl',
      { class: 'detail shell-detail' },
      ...row('Command', command),
      ...(detail.description === null ? [] : row('Agent says', safeForDisplay(detail.description))),
      ...row('Folder', h('code', {}, safeForDisplay(detail.cwd))),
      ...row('Why', safeForDisplay(detail.why)),
      ...row('Rule', safeForDisplay(detail.rule)),
    );
  }
  const lines = detail.json.split('\n').map((l) => safeForDisplay(l));
  const cut = detail.truncated ? h('p', { class: 'note' }, 'The input is longer than a card keeps (40 KiB): the rest is not shown.') : '';
  return h(
    'div',
    { class: 'detail input-detail' },
    previewed(lines, (l) => h('span', { class: 'line' }, ...highlightLine(l, 'json')), 'The tool input', 'json'),
    cut,
  );
}
