// Every `gatehouse …` command that a message or help text in src/, the README or docs/ tells a person to run
// names a real command, subcommand and flags of the built CLI: a hint to run a command that
// does not exist sends a newcomer nowhere.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gatehouse } from '../support/cli.js';

/** Every .ts/.tsx file under `dir`. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return /\.tsx?$/.test(e.name) ? [path] : [];
  });
}

/** One backticked mention: where it is, and the words after `gatehouse`. */
interface Mention {
  at: string;
  words: string[];
}

/** The pages a person reads: the README and docs/. */
const pages = (): string[] => [
  'README.md',
  ...readdirSync('docs')
    .filter((f) => f.endsWith('.md'))
    .map((f) => join('docs', f)),
];

/**
 * The backticked `gatehouse …` commands in the code (comments left out) and in the pages;
 * message prefixes (`gatehouse serve: …`) are not commands.
 */
function mentions(): Mention[] {
  const out: Mention[] = [];
  for (const file of [...sources('src'), ...pages()]) {
    const code = !file.endsWith('.md');
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (code && /^\s*(\/\/|\/\*|\*)/.test(line)) return;
        for (const m of line.matchAll(/`gatehouse ([^`]*?)\\?`/g)) {
          const words = m[1]!.split(/\s+/);
          if (words[0] === undefined || !/^[a-z][a-z-]*$/.test(words[0])) continue;
          if (/\\n/.test(m[1]!) || /^[a-z-]+:/.test(m[1]!) || words[0] === 'supervisor') continue;
          out.push({ at: `${file}:${i + 1}`, words });
        }
      });
  }
  return out;
}

/** The subcommands a help text lists under "Commands:". */
function subcommands(help: string): string[] {
  const section = help.split(/^Commands:$/m)[1] ?? '';
  return [...section.matchAll(/^ {2}([a-z][a-z-]*)/gm)].map((m) => m[1]!).filter((c) => c !== 'help');
}

const helpCache = new Map<string, string>();
function help(path: string[]): string {
  const key = path.join(' ');
  if (!helpCache.has(key)) helpCache.set(key, gatehouse([...path, '--help']).stdout);
  return helpCache.get(key)!;
}

describe('commands named in messages', () => {
  it('finds the mentions it checks', () => {
    const found = mentions();
    expect(found.length).toBeGreaterThan(20);
    expect(found.some((m) => m.words.join(' ') === 'approve --list')).toBe(true);
  });

  // About 40 `--help` runs of the built CLI, one after another: 20-26 s in a loaded CI run, past the default 30 s with a third worker.
  it('names only real commands, subcommands and flags', { timeout: 120_000 }, () => {
    const top = subcommands(help([]));
    expect(top).toContain('approve');
    const wrong: string[] = [];
    for (const { at, words } of mentions()) {
      const [cmd, ...rest] = words as [string, ...string[]];
      if (!top.includes(cmd)) {
        wrong.push(`${at}: \`gatehouse ${words.join(' ')}\`: no command ${cmd}`);
        continue;
      }
      const path = [cmd];
      const subs = subcommands(help([cmd]));
      const next = rest[0];
      if (subs.length > 0 && next !== undefined && /^[a-z][a-z|-]*$/.test(next)) {
        const named = next.split('|');
        const missing = named.filter((s) => !subs.includes(s));
        if (missing.length > 0) wrong.push(`${at}: \`gatehouse ${words.join(' ')}\`: no subcommand ${missing.join(', ')} of ${cmd}`);
        if (named.length === 1 && missing.length === 0) path.push(next);
      }
      const text = help(path);
      for (const flag of rest.filter((w) => /^--[a-z][a-z-]*$/.test(w))) {
        if (!new RegExp(`${flag}\\b`).test(text)) wrong.push(`${at}: \`gatehouse ${words.join(' ')}\`: ${path.join(' ')} has no ${flag}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
