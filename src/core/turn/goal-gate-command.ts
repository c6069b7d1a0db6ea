// Vets a gate command that came from the model or another untrusted source: a strict
// character allow-list, so the command cannot chain, redirect, substitute or glob.
import { splitCommand } from '../argv.js';

/** Letters, digits, space and `/ . _ - : ' " =`: enough for `npm test`, `pytest -k 'not slow'`, `make check X=y`. */
const ALLOWED = /^[A-Za-z0-9 /._\-:'"=]$/;

/** A gate command is one short invocation; anything longer belongs in a script the operator can review. */
export const MAX_GATE_COMMAND_LENGTH = 1024;

/** Names for characters that are invisible or easy to misread in a message. */
const CHAR_NAMES: Readonly<Record<string, string>> = {
  '\n': 'newline',
  '\r': 'carriage return',
  '\t': 'tab',
  '\0': 'NUL',
  ';': 'semicolon',
  '&': 'ampersand',
  '|': 'pipe',
  $: 'dollar sign',
  '`': 'backtick',
  '<': 'less-than',
  '>': 'greater-than',
  '*': 'asterisk',
  '?': 'question mark',
  '[': 'opening bracket',
  ']': 'closing bracket',
  '(': 'opening parenthesis',
  ')': 'closing parenthesis',
  '{': 'opening brace',
  '}': 'closing brace',
  '~': 'tilde',
  '!': 'exclamation mark',
  '#': 'hash',
  '%': 'percent sign',
  '^': 'caret',
  '\\': 'backslash',
};

function describeChar(ch: string): string {
  const cp = ch.codePointAt(0)!;
  const code = `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
  const name = CHAR_NAMES[ch];
  const printable = cp >= 0x20 && cp !== 0x7f;
  const shown = printable ? `"${ch}" ` : '';
  if (name) return `${shown}(${name}, ${code})`;
  return `${shown}(${code}${cp > 0x7f ? ', not ASCII' : ''})`;
}

/** Either the command's argv, or why it is refused. */
export type GateCommandCheck = { ok: true; argv: string[] } | { ok: false; reason: string };

/**
 * Accepts a gate command only if every character is on the allow-list and its quotes
 * balance; the reason names the first offending character and where it is. The allow-list
 * stops shell tricks, not the choice of program: decide separately who may pick that.
 * @example checkGateCommand(`pytest -k 'not slow'`) // {ok: true, argv: ['pytest', '-k', 'not slow']}
 */
export function checkGateCommand(cmd: string): GateCommandCheck {
  const what = 'Gate commands may contain only letters, digits, spaces and / . _ - : \' " =';
  if (cmd.trim().length === 0) return { ok: false, reason: 'The gate command is empty; give the command that checks the goal, e.g. `npm test`.' };
  if (cmd.length > MAX_GATE_COMMAND_LENGTH) {
    return { ok: false, reason: `The gate command is ${cmd.length} characters long (limit ${MAX_GATE_COMMAND_LENGTH}); put the logic in a script and give its path.` };
  }
  let position = 0;
  for (const ch of cmd) {
    position++;
    if (!ALLOWED.test(ch)) {
      return { ok: false, reason: `The gate command contains ${describeChar(ch)} at character ${position}. ${what}; for pipes, redirects or several steps, put them in a script and give its path.` };
    }
  }
  const argv = splitCommand(cmd);
  if (!argv.ok) return { ok: false, reason: `The gate command cannot be split into words (${argv.reason}); balance its quotes.` };
  return { ok: true, argv: argv.value };
}
