// The program a command line runs, past wrappers (`env`, `nohup`…) and `NAME=value` words:
// shared by the dashboard's warning and the server's and CLI's refusal of a mismatched agent.

/** Words that run the word after them (and their own options) as the program. */
const WRAPPERS: ReadonlySet<string> = new Set(['env', 'exec', 'command', 'nohup', 'time', 'nice', 'sudo']);

/** `NAME=value`, as `env` and shells take it before the program. */
const ASSIGNMENT_RE = /^[A-Za-z_][A-Za-z0-9_]*=/;

/**
 * The program a command line runs, past `env`, `exec`, `nohup`… and `NAME=value` words, by its
 * base name; null for an empty line.
 * @example programOf(['env', 'KEY=v', '/usr/local/bin/claude', '-p', 'hi']) // 'claude'
 */
export function programOf(argv: readonly string[]): string | null {
  let i = 0;
  while (i < argv.length) {
    const word = argv[i] ?? '';
    const base = word.slice(word.lastIndexOf('/') + 1);
    if (ASSIGNMENT_RE.test(word)) i++;
    else if (WRAPPERS.has(base)) {
      i++;
      while (i < argv.length && (argv[i] ?? '').startsWith('-')) i++;
    } else return base;
  }
  return null;
}
