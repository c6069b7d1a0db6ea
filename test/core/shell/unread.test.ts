import { describe, expect, it } from 'vitest';
import { analyzeShell, MAX_COMMAND_LENGTH, MAX_NESTING_DEPTH, MAX_WORD_LENGTH, type ShellContext } from '../../../src/core/shell/index.js';
import { parseShell } from '../../../src/core/shell/parser.js';
import { parsedPrefix } from '../../../src/core/shell/parsed-prefix.js';
import { MAX_UNREAD_SCAN, scanUnread } from '../../../src/core/shell/unread.js';

const ctx: ShellContext = { cwd: '/w', home: '/home/u', protectedPaths: ['/w/gatehouse.yaml', '/home/u/.gitconfig'] };

const deep = MAX_NESTING_DEPTH + 10;
const nested = `echo ${'$('.repeat(deep)}x${')'.repeat(deep)}`;
const oversized = `echo ${'a'.repeat(MAX_WORD_LENGTH + 1)}`;
const overlong = `echo ${'a '.repeat(MAX_COMMAND_LENGTH / 2)}`;

describe('a command line that does not parse whole', () => {
  const refused: [string, string][] = [
    ['a refused command, then a syntax error on a later line', 'rm -rf ~\necho "unterminated'],
    ['a refused command, then nesting past the limit', `rm -rf ~\n${nested}`],
    ['a refused command, then an oversized word', `rm -rf ~\n${oversized}`],
    ['a refused command, then more than the longest command parsed', `rm -rf ~\n${overlong}`],
    ['a protected write, then a syntax error', 'echo x > ~/.gitconfig\nfi'],
    ['a write on the same line as the error', 'echo x > notes.txt; echo "oops'],
    ['a command that is not read-only, on the same line as the error', 'npm test; echo "oops'],
    ['a runner in the unread part', `python3 -c 'print(1)' "`],
    ['a redirection in the unread part', 'ls; cat a > b; echo "'],
    ['a command name only known at run time', '$CMD x "'],
    ['a write inside a substitution of the unread part', 'echo "$(touch x)'],
    ['a heredoc without its delimiter line, which bash still runs', 'cat > ~/.bashrc <<EOF\nevil'],
    ['a write after the error, in nesting past the limit', `ls; ${nested}; rm x`],
    ['a write after an oversized word', `${oversized}; rm x`],
    ['a refused command in an inner script that does not parse', `sh -c 'rm -rf ~\n"'`],
    ['a write in an inner script that does not parse', `bash -c 'echo x > f; echo "'`],
  ];
  it.each(refused)('refuses %s', (_name, cmd) => {
    const a = analyzeShell(cmd, ctx);
    expect(a.class, a.reason).toBe('deny');
    expect(a.unread?.couldWrite).toBe(true);
  });

  it('judges the lines bash runs before the error like any other, and says so', () => {
    const a = analyzeShell('rm -rf ~\necho "unterminated', ctx);
    expect(a.parsed).toBe(false);
    expect(a.commands.map((c) => c.argv.join(' '))).toEqual(['rm -rf /home/u']);
    expect(a.reason).toMatch(/^Gatehouse refused `rm -rf \/home\/u`: it deletes everything under \/home\/u/);
    expect(analyzeShell('npm test\necho "oops', ctx).reason).toMatch(/could write files, and bash would still run the lines before the error\. Instead, fix the syntax/);
  });

  const asked: [string, string, boolean][] = [
    ['an unterminated quote after read-only commands', 'ls; grep "foo', false],
    ['an unterminated quote with a path', 'ls; grep "foo /etc', true],
    ['a stray fi', 'ls\nfi', false],
    ['a glob in the unread part', 'cat *.ts; grep "', true],
    ['descriptors only', 'ls 2>&1 >/dev/null | grep "x', false],
    ['read-only commands in a substitution', 'echo "$(pwd)', true],
    ['a read-only inner script that does not parse', `sh -c 'ls; grep "'`, false],
  ];
  it.each(asked)('asks for %s, saying whether it touches a path', (_name, cmd, touchesPath) => {
    const a = analyzeShell(cmd, ctx);
    expect(a.class, a.reason).toBe('ask');
    expect(a.unread).toEqual({ couldWrite: false, touchesPath });
  });

  it('keeps a whole file in a heredoc, or a commit message in a substitution, under the word limit', () => {
    const body = 'x'.repeat(MAX_WORD_LENGTH + 10);
    expect(parseShell(`cat > src/a.ts <<'EOF'\n${body}\nEOF`).ok).toBe(true);
    expect(parseShell(`git commit -m "$(cat <<'EOF'\n${body}\nEOF\n)"`).ok).toBe(true);
    expect(parseShell(oversized)).toEqual({ ok: false, reason: `a word is longer than ${MAX_WORD_LENGTH} characters (at offset 5)` });
  });
});

describe('parsedPrefix', () => {
  it('takes the whole lines before the error', () => {
    const src = 'ls\nrm x\necho "oops\nls';
    const r = parseShell(src);
    expect(r.ok).toBe(false);
    const p = parsedPrefix(src, src.indexOf('"'));
    expect(p.end).toBe(src.indexOf('echo'));
    expect(p.script.items).toHaveLength(2);
  });

  it('steps back over a line that only parses with what follows it', () => {
    const src = 'ls\nif true; then\nrm x\n"';
    expect(parsedPrefix(src, src.length - 1).end).toBe(3);
  });

  it('gives up quickly, taking nothing, when every try would parse most of a long command', () => {
    const src = `if true; then\n${'echo a\n'.repeat(30_000)}"`;
    const started = Date.now();
    expect(parsedPrefix(src, src.length - 1).end).toBe(0);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('takes nothing when the error is on the first line', () => {
    expect(parsedPrefix('echo "x', 5)).toEqual({ script: { type: 'script', items: [] }, end: 0 });
  });
});

describe('scanUnread', () => {
  const cases: [string, boolean, boolean][] = [
    ['ls -la | grep x', false, false],
    ['echo "a > b', false, false],
    ["echo 'a > b", false, false],
    ['echo a > b', true, false],
    ['ls >&2; ls 2>&1', false, false],
    ['ls > /dev/null', false, false],
    ['ls >', true, false],
    ['ls 2> "$LOG', true, true],
    ['rm x', true, false],
    ['git status; git log "x', false, false],
    ['git push', true, false],
    ['X=1 ls', false, false],
    ['if ls; then cat a; fi', false, false],
    ['for f in a b; do cat $f; done', false, true],
    ['bash -c "ls', true, false],
    ['`rm x`', true, true],
    ['echo ${x:-$(rm y)}', true, true],
    ["$'\\x72m' x", true, true],
    ['cat <<"EOF"\nrm -rf /\nEOF\nls', false, false],
    ['cat <<EOF\n$(rm x)\nEOF', true, true],
    ['ls ~/x', false, true],
    ['ls ./x', false, true],
  ];
  it.each(cases)('reads %j: could write %s, touches a path %s', (text, couldWrite, touchesPath) => {
    expect(scanUnread(text)).toEqual({ couldWrite, touchesPath });
  });

  it(`takes anything past ${MAX_UNREAD_SCAN} characters to write and touch paths`, () => {
    expect(scanUnread(`ls ${'a'.repeat(MAX_UNREAD_SCAN)}`)).toEqual({ couldWrite: true, touchesPath: true });
  });
});
