// Quotes argv for a POSIX shell command line: agents run command hooks through `sh -c`,
// so every rendered path (spaces, quotes, unicode) must survive that exactly.

const SAFE = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** Quotes one word for `sh`. */
export function shellQuote(word: string): string {
  if (word.length > 0 && SAFE.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * Joins argv into one `sh` command line.
 * @example shellJoin(['node', '/a b/hook.js']) // "node '/a b/hook.js'"
 */
export function shellJoin(argv: readonly string[]): string {
  return argv.map(shellQuote).join(' ');
}
