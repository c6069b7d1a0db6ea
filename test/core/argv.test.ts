import { describe, expect, it } from 'vitest';
import { splitCommand } from '../../src/core/argv.js';

describe('splitCommand', () => {
  const words: [string, string, string[]][] = [
    ['splits on spaces', 'npm test', ['npm', 'test']],
    ['collapses runs of spaces, tabs and newlines', '  npm \t run\n  lint  ', ['npm', 'run', 'lint']],
    ['keeps a single-quoted string literal, backslashes and $ included', `echo 'a \\"b\\" $HOME'`, ['echo', 'a \\"b\\" $HOME']],
    ['groups a double-quoted string into one word', 'vitest run -t "loads a file"', ['vitest', 'run', '-t', 'loads a file']],
    ['unescapes \\" \\\\ \\$ and \\` inside double quotes', 'echo "say \\"hi\\" \\\\ \\$x \\`y\\`"', ['echo', 'say "hi" \\ $x `y`']],
    ['keeps a backslash before other characters inside double quotes', 'echo "a\\nb"', ['echo', 'a\\nb']],
    ['escapes the next character outside quotes', 'echo a\\ b \\"c\\\' \\\\', ['echo', 'a b', `"c'`, '\\']],
    ['removes a backslash-newline outside quotes', 'npm \\\n test', ['npm', 'test']],
    ['joins adjacent quoted and bare parts into one word', `--grep='a b'"c d"e`, ['--grep=a bc de']],
    ['makes an empty word from empty quotes', `printf '' ""`, ['printf', '', '']],
    ['keeps $VAR, globs and shell operators literal', 'echo $HOME *.ts a;b x|y && z # c', ['echo', '$HOME', '*.ts', 'a;b', 'x|y', '&&', 'z', '#', 'c']],
    ['keeps unicode intact, including astral characters', `echo "héllo wörld" 日本 '🙂 ok'`, ['echo', 'héllo wörld', '日本', '🙂 ok']],
    ['treats a non-breaking space as part of a word, as sh does', 'a\u00a0b c', ['a\u00a0b', 'c']],
  ];
  it.each(words)('%s', (_name, cmd, argv) => {
    expect(splitCommand(cmd)).toEqual({ ok: true, value: argv });
  });

  const failures: [string, string, RegExp][] = [
    ['fails on an empty command', '', /empty/],
    ['fails on a whitespace-only command', ' \t\n ', /empty/],
    ['fails on an unterminated single quote, naming the quote', "echo 'oops", /unterminated single quote/],
    ['fails on an unterminated double quote, naming the quote', 'echo "oops', /unterminated double quote/],
    ['fails when an escaped quote leaves the double quote open', 'echo "oops\\"', /unterminated double quote/],
    ['fails on a trailing lone backslash', 'echo a\\', /lone backslash/],
  ];
  it.each(failures)('%s', (_name, cmd, reason) => {
    const r = splitCommand(cmd);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(reason);
  });
});
