// A permission profile's shell allowlist: which simple commands a Bash line may contain.
// Entries are literal command prefixes unless they say otherwise (`re:`, `glob:`, `class:approve`).
import { splitCommand } from '../argv.js';
import { fail, ok, type Result } from '../result.js';
import type { ShellAnalysis } from '../shell/index.js';
import { compileStarGlob } from './star-glob.js';

/** One simple command as the shell analyser reports it. */
export type SimpleCommand = ShellAnalysis['commands'][number];

/** One compiled allowlist entry; `source` is the entry as the operator wrote it. */
export type ShellAllowEntry =
  { type: 'prefix'; source: string; words: string[] } | { type: 'regex'; source: string; re: RegExp } | { type: 'glob'; source: string; re: RegExp } | { type: 'approve-class'; source: string };

/** Prefix that makes an entry a regular expression (whole-command match, `u` flag). */
const REGEX_PREFIX = 're:';
/** Prefix that makes an entry a `*`-only glob over the whole command. */
const GLOB_PREFIX = 'glob:';
/** The entry that admits whatever the classifier puts on its read-only (approve) list. */
export const APPROVE_CLASS_ENTRY = 'class:approve';

/**
 * Compiles allowlist entries once. An entry is:
 * - `npm test` — literal words; matches a command whose argv starts with exactly these words
 *   (`npm test -- --grep x` yes, `npm testx` and `npm run test` no). Quotes group words as in sh.
 * - `re:<regex>` — must match the whole command (argv joined by single spaces).
 * - `glob:<glob>` — `*` matches anything (spaces and `/` too), the rest is literal; whole command.
 * - `class:approve` — any command the shell classifier rates `approve` (its read-only list).
 * Nothing else is ever read as a pattern: `npm.test` matches only the word `npm.test`.
 * @example compileShellAllow(['npm test', 're:^go (test|vet)( .*)?$'])
 */
export function compileShellAllow(entries: readonly string[]): Result<ShellAllowEntry[]> {
  const out: ShellAllowEntry[] = [];
  for (const source of entries) {
    if (typeof source !== 'string' || source.trim() === '') {
      return fail('A shell allowlist entry is empty; write a command prefix such as "npm test", or remove it.');
    }
    if (source === APPROVE_CLASS_ENTRY) {
      out.push({ type: 'approve-class', source });
    } else if (source.startsWith(REGEX_PREFIX)) {
      const body = source.slice(REGEX_PREFIX.length);
      try {
        // Anchored: an entry meant for `npm test` must not admit `npm test && rm -rf ~`.
        out.push({ type: 'regex', source, re: new RegExp(`^(?:${body})$`, 'u') });
      } catch (err) {
        const why = err instanceof Error ? err.message : String(err);
        return fail(`Shell allowlist entry ${JSON.stringify(source)} is not a valid regular expression (${why}); fix it or write a literal command prefix.`);
      }
    } else if (source.startsWith(GLOB_PREFIX)) {
      out.push({ type: 'glob', source, re: compileStarGlob(source.slice(GLOB_PREFIX.length)) });
    } else {
      const words = splitCommand(source);
      if (!words.ok) return fail(`Shell allowlist entry ${JSON.stringify(source)}: ${words.reason}`);
      out.push({ type: 'prefix', source, words: words.value });
    }
  }
  return ok(out);
}

/**
 * True if some entry admits the simple command. A command whose words are not literal
 * (`$VAR`, `$(…)`, globs) can only pass by its classifier class: its real argv is unknown.
 */
export function shellCommandAllowed(entries: readonly ShellAllowEntry[], command: SimpleCommand): boolean {
  const joined = command.argv.join(' ');
  for (const e of entries) {
    if (e.type === 'approve-class') {
      if (command.class === 'approve') return true;
    } else if (!command.literal) {
      continue;
    } else if (e.type === 'prefix') {
      if (e.words.length <= command.argv.length && e.words.every((w, i) => command.argv[i] === w)) return true;
    } else if (e.re.test(joined)) {
      return true;
    }
  }
  return false;
}
