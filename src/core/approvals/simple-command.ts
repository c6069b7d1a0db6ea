// Whether a command line is ONE whole simple command: the only kind an always-allow glob or
// regex may match, so a rule written for `npm run lint*` never admits `npm run lint; rm -rf x`.
import { parseShell } from '../shell/index.js';
import type { Node, Redirect, Word } from '../shell/index.js';

/** Where output may go without writing a file: the rule then still describes all the command does. */
const NULL_DEVICE = '/dev/null';

/** A file descriptor duplicated or closed (`2>&1`, `>&2`, `<&-`): no file is named. */
const FD_TARGET = /^(?:\d+|-)$/;

/** Output redirections whose target is a file (or, for `>&`, a descriptor). */
const OUTPUT_OPS: ReadonlySet<Redirect['op']> = new Set(['>', '>>', '>|', '&>', '&>>']);

/** Nothing runs while the word expands: no `$(…)`, backticks, `<(…)`, arithmetic or prompt expansion. */
function runsNothing(w: Word): boolean {
  return w.subs.length === 0 && !w.evaluates;
}

/** A redirection that names no file but the null device: fd duplication, or output thrown away. */
function writesNoFile(r: Redirect): boolean {
  if (!r.target.literal) return false;
  if (r.op === '>&' || r.op === '<&') return FD_TARGET.test(r.target.value) || (r.op === '>&' && r.target.value === NULL_DEVICE);
  return OUTPUT_OPS.has(r.op) && r.target.value === NULL_DEVICE;
}

/** The simple command a node is, unwrapping a one-command pipeline; null for anything else. */
function soleSimple(node: Node): Extract<Node, { type: 'simple' }> | null {
  if (node.type === 'simple') return node;
  if (node.type === 'pipeline' && !node.negated && node.commands.length === 1 && node.commands[0] !== undefined) return soleSimple(node.commands[0]);
  return null;
}

/**
 * True if `command` parses as exactly one simple command: no `;`, `&&`, `||`, `|`, `&` or
 * newline between commands, no subshell, group or compound command, nothing that runs
 * while its words expand (`$(…)`, backticks, process substitution, arithmetic), and no
 * redirection to a file (`2>&1` and `> /dev/null` are fine). A line that does not parse is
 * never one. Variables (`$X`) may stay: they only add arguments, which a pattern's `*` admits anyway.
 * @example isOneSimpleCommand('npm run lint -- --fix 2>&1') // true
 * @example isOneSimpleCommand('npm run lint; rm -rf x') // false
 */
export function isOneSimpleCommand(command: string): boolean {
  const parsed = parseShell(command);
  if (!parsed.ok) return false;
  const [item, ...rest] = parsed.value.items;
  if (item === undefined || rest.length > 0 || item.background) return false;
  const simple = soleSimple(item.node);
  if (simple === null || simple.words.length === 0) return false;
  const words = [...simple.words, ...simple.assignments.map((a) => a.value), ...simple.redirects.map((r) => r.target)];
  return words.every(runsNothing) && simple.redirects.every(writesNoFile);
}
