// The part of a command line that does not parse whole that bash still runs: the longest run of
// complete lines before the error that parses. unread.ts scans the rest leniently.
import type { Script } from './ast.js';
import { MAX_COMMAND_LENGTH, parseShellAt } from './parser.js';

/**
 * Parses tried while looking for the longest prefix of whole lines that parses. Each try jumps
 * to the line before the new error, so real commands need one or two; past this, nothing is
 * taken as parsed and the whole command is scanned leniently (the safe side).
 */
const MAX_PREFIX_TRIES = 8;

/**
 * Characters the prefix search may parse in all, so that a long command cannot make it parse
 * near its whole length at every try: one command of the longest length parsed.
 */
const MAX_PREFIX_CHARS = MAX_COMMAND_LENGTH;

/**
 * The longest prefix of `src` made of whole lines, ending before `offset`, that parses; `end` is
 * where the unread rest begins.
 * @example parsedPrefix('rm -rf ~\necho "x', 14).end // 9
 */
export function parsedPrefix(src: string, offset: number): { script: Script; end: number } {
  let limit = Math.min(offset, MAX_COMMAND_LENGTH, src.length);
  let budget = MAX_PREFIX_CHARS;
  for (let i = 0; i < MAX_PREFIX_TRIES; i++) {
    const end = src.lastIndexOf('\n', limit - 1) + 1;
    if (end <= 0 || end > budget) break;
    budget -= end;
    const r = parseShellAt(src.slice(0, end));
    if (r.ok) return { script: r.value, end };
    limit = Math.min(r.offset, end - 1);
  }
  return { script: { type: 'script', items: [] }, end: 0 };
}
