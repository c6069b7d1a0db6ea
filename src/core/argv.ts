// Splits a command line into argv with POSIX-shell word rules, but without a shell:
// quotes and backslashes group words; `$VAR`, globs, `;`, `|`, `#` stay literal.
import { fail, ok } from './result.js';
import type { Result } from './result.js';

/** The characters that separate words, as in the shell's default IFS (plus CR for CRLF files). */
const WORD_SEPARATORS = new Set([' ', '\t', '\n', '\r']);

/** Inside double quotes a backslash escapes only these, as in POSIX sh; before anything else it is literal. */
const DOUBLE_QUOTE_ESCAPES = new Set(['"', '\\', '$', '`']);

/**
 * Splits `cmd` into argv the way a POSIX shell forms words, without running a shell.
 *
 * - whitespace separates words; `''` and `""` make an empty word;
 * - single quotes keep everything literal up to the next `'`;
 * - in double quotes, `\"` `\\` `\$` `` \` `` are escapes, backslash-newline is removed,
 *   any other backslash is kept;
 * - outside quotes a backslash escapes the next character (backslash-newline is removed).
 *
 * Nothing is expanded: `$HOME`, `*.ts`, `a;b`, `x|y` come out as written.
 * Fails on an empty command, an unterminated quote and a trailing lone backslash.
 * @example splitCommand(`npm test -- --grep "a b"`) // ok(['npm', 'test', '--', '--grep', 'a b'])
 */
export function splitCommand(cmd: string): Result<string[]> {
  const words: string[] = [];
  let word = '';
  // A word exists once any character or quote of it is seen, so `""` yields an empty word.
  let inWord = false;
  // Iterate by code point so astral characters are never split.
  const chars = Array.from(cmd);
  let i = 0;

  const endWord = (): void => {
    if (inWord) words.push(word);
    word = '';
    inWord = false;
  };

  while (i < chars.length) {
    const c = chars[i] as string;
    if (WORD_SEPARATORS.has(c)) {
      endWord();
      i += 1;
    } else if (c === "'") {
      const close = chars.indexOf("'", i + 1);
      if (close === -1) return fail(unterminated('single', cmd));
      word += chars.slice(i + 1, close).join('');
      inWord = true;
      i = close + 1;
    } else if (c === '"') {
      inWord = true;
      i += 1;
      let closed = false;
      while (i < chars.length) {
        const d = chars[i] as string;
        if (d === '"') {
          closed = true;
          i += 1;
          break;
        }
        const next = chars[i + 1];
        if (d === '\\' && next !== undefined && DOUBLE_QUOTE_ESCAPES.has(next)) {
          word += next;
          i += 2;
        } else if (d === '\\' && next === '\n') {
          i += 2;
        } else {
          word += d;
          i += 1;
        }
      }
      if (!closed) return fail(unterminated('double', cmd));
    } else if (c === '\\') {
      const next = chars[i + 1];
      if (next === undefined) {
        return fail(`Command ${JSON.stringify(cmd)} ends with a lone backslash; remove it or write \\\\ for a literal one.`);
      }
      if (next !== '\n') {
        word += next;
        inWord = true;
      }
      i += 2;
    } else {
      word += c;
      inWord = true;
      i += 1;
    }
  }
  endWord();

  if (words.length === 0) return fail('the command is empty; give the program to run and its arguments, e.g. "npm test"');
  return ok(words);
}

function unterminated(kind: 'single' | 'double', cmd: string): string {
  const q = kind === 'single' ? "'" : '"';
  return `the command ${JSON.stringify(cmd)} has an unterminated ${kind} quote (${q}); close it, or give the command as an argv list instead of a string`;
}
