import { describe, expect, it } from 'vitest';
import type { Node, Redirect, Script, SimpleCommand, Word } from '../../../src/core/shell/ast.js';
import { MAX_NESTING_DEPTH } from '../../../src/core/shell/lexer.js';
import { MAX_COMMAND_LENGTH, parseShell } from '../../../src/core/shell/parser.js';
import { someSimpleCommand } from '../../../src/core/shell/walk.js';
import { analyzeShell } from '../../../src/core/shell/index.js';

/** How much slower the hostile inputs may parse than plain ones of the same sizes (3-5x here; a rescan: thousands). */
const MAX_HOSTILE_SLOWDOWN = 50;

function parse(src: string): Script {
  const r = parseShell(src);
  if (!r.ok) throw new Error(`did not parse: ${r.reason}`);
  return r.value;
}

/** Every simple command, substitutions first (they run first), as literal values or written text. */
function argvs(src: string): string[][] {
  const out: string[][] = [];
  someSimpleCommand(parse(src), (c) => {
    out.push(c.words.map((w) => (w.literal ? w.value : w.text)));
    return false;
  });
  return out;
}

function only(src: string): SimpleCommand {
  const node = firstNode(src);
  if (node.type !== 'simple') throw new Error(`not a simple command: ${node.type}`);
  return node;
}

function firstNode(src: string): Node {
  return parse(src).items[0]!.node;
}

function word(src: string): Word {
  return only(`echo ${src}`).words[1]!;
}

describe('parseShell: words and quoting', () => {
  const values: [string, string, string[]][] = [
    ['removes single quotes and keeps $, backslashes and double quotes inside literal', `echo 'a $b \\c "d"'`, ['echo', 'a $b \\c "d"']],
    ['unescapes \\" \\\\ \\$ and \\` inside double quotes and keeps other backslashes', 'echo "say \\"hi\\" \\\\ \\$x \\`y\\` \\n"', ['echo', 'say "hi" \\ $x `y` \\n']],
    ['escapes the next character outside quotes', 'echo \\r\\m a\\ b', ['echo', 'rm', 'a b']],
    ['joins adjacent quoted and bare parts into one word', `r''m "-"rf a'b'"c"d`, ['rm', '-rf', 'abcd']],
    ['makes an empty word from empty quotes', `printf '' ""`, ['printf', '', '']],
    ["decodes $'…' escapes: hex, octal, unicode, control and the quote itself", "echo $'\\x72\\155\\u0041\\t\\'q'", ['echo', "rmA\t'q"]],
    ['treats $"…" like a double-quoted string', 'echo $"a b"', ['echo', 'a b']],
    ['removes a backslash-newline between words', 'npm \\\n test', ['npm', 'test']],
    ['keeps a trailing lone backslash as a character', 'echo \\', ['echo', '\\']],
    ['keeps # inside a word', 'echo a#b', ['echo', 'a#b']],
    ['splits words on tabs and spaces but not on a non-breaking space', 'a\tb  c\u00a0d', ['a', 'b', 'c\u00a0d']],
  ];
  it.each(values)('%s', (_name, src, argv) => {
    expect(argvs(src)).toEqual([argv]);
  });

  const literalness: [string, string, boolean, string][] = [
    ['a plain word is literal', 'plain', true, 'plain'],
    ['a quoted glob is literal', "'*.ts'", true, '*.ts'],
    ['an escaped glob is literal', '\\*', true, '*'],
    ["$'…' is literal", "$'\\t'", true, '\t'],
    ['{} without a comma is literal', '{}', true, '{}'],
    ['a lone [ is literal', '[', true, '['],
    ['a tilde in the middle of a word is literal', 'a~', true, 'a~'],
    ['$VAR is an expansion, kept as written', '$HOME', false, '$HOME'],
    ['a quoted parameter keeps its text in the value', '"$HOME"/x', false, '$HOME/x'],
    ['${…} is an expansion', '${X:-y}', false, '${X:-y}'],
    ['$(…) is an expansion', '$(ls)', false, '$(ls)'],
    ['a backtick substitution is an expansion', '`ls`', false, '`ls`'],
    ['$((…)) is an expansion', '$((1 + 2))', false, '$((1 + 2))'],
    ['an unquoted * is a glob', '*.ts', false, '*.ts'],
    ['an unquoted ? is a glob', 'a?', false, 'a?'],
    ['[ab] is a glob', '[ab]', false, '[ab]'],
    ['{a,b} is a brace expansion', '{a,b}', false, '{a,b}'],
    ['{1..3} is a brace expansion', '{1..3}', false, '{1..3}'],
    ['a leading tilde is an expansion', '~/x', false, '~/x'],
    ['an extglob group is an expansion', '@(a|b)', false, '@(a|b)'],
  ];
  it.each(literalness)('%s', (_name, src, literal, value) => {
    const w = word(src);
    expect({ literal: w.literal, value: w.value, text: w.text }).toEqual({ literal, value, text: src });
  });

  const evaluating: [string, string, boolean][] = [
    ['arithmetic on a variable', '$((X + 1))', true],
    ['arithmetic on numbers only', '$((1 + 2))', false],
    ['arithmetic on $#', '$(($# + 1))', false],
    ['old-style arithmetic on a variable', '$[X]', true],
    ['a substring offset from a variable', '${s:X}', true],
    ['a substring offset of numbers', '${s:1:2}', false],
    ['a default value, not a substring', '${s:-X}', false],
    ['an index from a variable', '${a[i]}', true],
    ['all elements', '${a[@]}', false],
    ['prompt expansion', '${P@P}', true],
    ['zsh parameter flags', '${(e)X}', true],
    ['an extglob or zsh glob qualifier', '*(e:x:)', true],
    ['a nested evaluation inside a default', '${x:-$((Y))}', true],
    ['arithmetic inside double quotes', '"$((Y))"', true],
  ];
  it.each(evaluating)('marks whether a word evaluates text as code: %s', (_name, src, evaluates) => {
    expect(word(src).evaluates).toBe(evaluates);
  });

  it('marks unquoted expansions as splitting and quoted ones as not', () => {
    expect(word('$X').splits).toBe(true);
    expect(word('"$X"').splits).toBe(false);
    expect(word('*').splits).toBe(true);
  });
});

describe('parseShell: lists, and-or lists and pipelines', () => {
  it('separates commands by ;, & and newlines and marks background ones', () => {
    const script = parse('a; b & c\nd');
    expect(script.items.map((i) => i.background)).toEqual([false, true, false, false]);
    expect(argvs('a; b & c\nd')).toEqual([['a'], ['b'], ['c'], ['d']]);
  });

  it('reads && and || as one and-or list, allowing a newline after the operator', () => {
    const node = firstNode('a && b ||\n c');
    expect(node.type === 'and_or' && node.ops).toEqual(['&&', '||']);
    expect(argvs('a && b ||\n c')).toEqual([['a'], ['b'], ['c']]);
  });

  it('reads | and |& as one pipeline', () => {
    const node = firstNode('a | b |& c');
    expect(node.type === 'pipeline' && node.ops).toEqual(['|', '|&']);
  });

  it('reads ! as a negated pipeline', () => {
    const node = firstNode('! a | b');
    expect(node.type === 'pipeline' && node.negated).toBe(true);
  });

  it('returns an empty script for empty input, blanks and comments', () => {
    expect(parse('').items).toEqual([]);
    expect(parse('  \n\t\n').items).toEqual([]);
    expect(parse('# only a comment').items).toEqual([]);
  });

  it('drops comments, which start only at the beginning of a word', () => {
    expect(argvs('ls # rm -rf /\necho a#b # c')).toEqual([['ls'], ['echo', 'a#b']]);
  });
});

describe('parseShell: compound commands reach the simple commands inside', () => {
  const cases: [string, string, string, string[][]][] = [
    ['subshell', '(cd a; ls)', 'subshell', [['cd', 'a'], ['ls']]],
    ['group', '{ a; b; }', 'group', [['a'], ['b']]],
    ['if / elif / else', 'if a; then b; elif c; then d; else e; fi', 'if', [['a'], ['b'], ['c'], ['d'], ['e']]],
    ['if across lines', 'if a\nthen\n  b\nfi', 'if', [['a'], ['b']]],
    ['for … in', 'for f in x "$y"; do rm "$f"; done', 'for', [['rm', '"$f"']]],
    ['for without in', 'for f; do a; done', 'for', [['a']]],
    ['arithmetic for', 'for ((i = 0; i < 3; i++)); do a; done', 'for', [['a']]],
    ['select', 'select x in a b; do c; done', 'for', [['c']]],
    [
      'while',
      'while read l; do echo "$l"; done',
      'loop',
      [
        ['read', 'l'],
        ['echo', '"$l"'],
      ],
    ],
    ['until', 'until a; do b; done', 'loop', [['a'], ['b']]],
    ['case with several patterns and fallthrough', 'case $x in a|b) c;; (d) e;& *) f;;& esac', 'case', [['c'], ['e'], ['f']]],
    ['case with an empty arm and no final ;;', 'case x in a) ;; b) c\nesac', 'case', [['c']]],
    ['a function with ()', 'f() { a; }', 'function', [['a']]],
    ['a function with the keyword', 'function g { b; }', 'function', [['b']]],
    ['a function with keyword and () and a subshell body', 'function h() ( c )', 'function', [['c']]],
    ['[[ … ]] with && and < inside', '[[ $(a) == b && x < y ]]', 'cond', [['a']]],
    ['(( … ))', '(( x = $(a) + 1 ))', 'arith', [['a']]],
  ];
  it.each(cases)('%s', (_name, src, type, commands) => {
    expect(firstNode(src).type).toBe(type);
    expect(argvs(src)).toEqual(commands);
  });

  it('keeps reserved words as plain arguments after the command name', () => {
    expect(argvs('echo if then fi done')).toEqual([['echo', 'if', 'then', 'fi', 'done']]);
  });

  it('reads assignments before the command, including arrays', () => {
    const cmd = only('A=1 B=(x y) C+=z cmd arg=1');
    expect(cmd.assignments.map((a) => [a.name, a.value.text])).toEqual([
      ['A', '1'],
      ['B', '(x y)'],
      ['C', 'z'],
    ]);
    expect(cmd.words.map((w) => w.value)).toEqual(['cmd', 'arg=1']);
  });
});

describe('parseShell: substitutions are parsed as commands', () => {
  const cases: [string, string, string[][]][] = [
    [
      '$(…)',
      'echo $(ls -l)',
      [
        ['ls', '-l'],
        ['echo', '$(ls -l)'],
      ],
    ],
    ['backticks', 'echo `ls`', [['ls'], ['echo', '`ls`']]],
    ['nested backticks with escaped inner backticks', 'echo `a \\`b\\``', [['b'], ['a', '`b`'], ['echo', '`a \\`b\\``']]],
    ['nested $(…) inside double quotes', 'echo "$(a "$(b)")"', [['b'], ['a', '"$(b)"'], ['echo', '"$(a "$(b)")"']]],
    [
      'a substitution inside ${…}',
      'echo ${x:-$(rm -rf /)}',
      [
        ['rm', '-rf', '/'],
        ['echo', '${x:-$(rm -rf /)}'],
      ],
    ],
    ['a substitution inside $((…))', 'echo $(( 1 + $(a) ))', [['a'], ['echo', '$(( 1 + $(a) ))']]],
    ['$( (…) ) as a subshell, not arithmetic', 'echo $( (a) )', [['a'], ['echo', '$( (a) )']]],
    ['process substitutions', 'diff <(a) >(b)', [['a'], ['b'], ['diff', '<(a)', '>(b)']]],
    ['a substitution in an assignment', 'x=$(a) b', [['a'], ['b']]],
    ['a substitution in a redirection target', 'echo > $(a)', [['a'], ['echo']]],
    ['a case statement inside $(…), whose ) is not the end', 'x=$(case y in y) a;; esac)', [['a'], []]],
    ['a substitution in a for list', 'for f in $(a); do b; done', [['a'], ['b']]],
  ];
  it.each(cases)('%s', (_name, src, commands) => {
    expect(argvs(src)).toEqual(commands);
  });
});

describe('parseShell: redirections', () => {
  const redirect = (src: string): Pick<Redirect, 'fd' | 'op'> & { target: string } => {
    const r = only(src).redirects[0]!;
    return { fd: r.fd, op: r.op, target: r.target.literal ? r.target.value : r.target.text };
  };
  const cases: [string, string, number | null, string, string][] = [
    ['>', 'a > f', null, '>', 'f'],
    ['> without a space', 'a >f', null, '>', 'f'],
    ['>>', 'a >> f', null, '>>', 'f'],
    ['<', 'a < f', null, '<', 'f'],
    ['2>', 'a 2> err', 2, '>', 'err'],
    ['&>', 'a &> f', null, '&>', 'f'],
    ['&>>', 'a &>> f', null, '&>>', 'f'],
    ['>&2', 'a >&2', null, '>&', '2'],
    ['2>&1', 'a 2>&1', 2, '>&', '1'],
    ['>|', 'a >| f', null, '>|', 'f'],
    ['<>', 'a <> f', null, '<>', 'f'],
    ['3<', 'a 3< f', 3, '<', 'f'],
    ['<&3', 'a <&3', null, '<&', '3'],
    ['2>&-', 'a 2>&-', 2, '>&', '-'],
    ['<<<', "a <<< 'x y'", null, '<<<', 'x y'],
    ['a redirection before the command name', '> f a', null, '>', 'f'],
  ];
  it.each(cases)('%s', (_name, src, fd, op, target) => {
    expect(redirect(src)).toEqual({ fd, op, target });
  });

  it('reads a number followed by a space as a word, not a descriptor', () => {
    const cmd = only('echo 2 > f');
    expect(cmd.words.map((w) => w.value)).toEqual(['echo', '2']);
    expect(cmd.redirects[0]!.fd).toBeNull();
  });

  it('attaches redirections to compound commands', () => {
    const group = firstNode('{ a; } > out');
    const loop = firstNode('while read l; do b; done < in');
    expect(group.type === 'group' && group.redirects[0]!.target.value).toBe('out');
    expect(loop.type === 'loop' && loop.redirects[0]!.op).toBe('<');
  });
});

describe('parseShell: heredocs', () => {
  const body = (src: string, i = 0): Word => only(src).redirects[i]!.body!;

  it('reads a plain heredoc body; a > inside it is text, not a redirection', () => {
    const cmd = only('cat <<EOF > out.txt\nhello > not-a-file\nEOF');
    expect(cmd.redirects.map((r) => r.op)).toEqual(['<<', '>']);
    expect(cmd.redirects[0]!.body!.value).toBe('hello > not-a-file\n');
  });

  it('runs substitutions in an unquoted heredoc body', () => {
    expect(argvs('cat <<EOF\n$(whoami) `id`\nEOF')).toEqual([['whoami'], ['id'], ['cat']]);
    expect(body('cat <<EOF\n$HOME\nEOF').literal).toBe(false);
  });

  const quoted: [string, string][] = [
    ['single-quoted', "cat <<'EOF'\n$(rm -rf /) `x`\nEOF"],
    ['double-quoted', 'cat <<"EOF"\n$(rm -rf /) `x`\nEOF'],
    ['backslash-quoted', 'cat <<\\EOF\n$(rm -rf /) `x`\nEOF'],
    ['partly quoted', 'cat <<E"OF"\n$(rm -rf /) `x`\nEOF'],
  ];
  it.each(quoted)('keeps a body with a %s delimiter literal and runs nothing in it', (_name, src) => {
    expect(body(src)).toMatchObject({ literal: true, value: '$(rm -rf /) `x`\n', subs: [] });
    expect(argvs(src)).toEqual([['cat']]);
  });

  it('strips leading tabs from the delimiter line with <<-', () => {
    expect(body('cat <<-EOF\n\tx\n\tEOF\nls').value).toBe('\tx\n');
    expect(argvs('cat <<-EOF\n\tx\n\tEOF\nls')).toEqual([['cat'], ['ls']]);
  });

  it('does not end a << body at an indented delimiter', () => {
    expect(body('cat <<EOF\n  EOF\nEOF').value).toBe('  EOF\n');
  });

  it('reads two heredocs opened on one line in order', () => {
    const cmd = only('cat <<A <<B\na\nA\nb\nB');
    expect(cmd.redirects.map((r) => r.body!.value)).toEqual(['a\n', 'b\n']);
  });

  it('continues with the commands after the body, including the rest of a pipeline line', () => {
    expect(argvs('cat <<EOF | grep x\nbody\nEOF\nls')).toEqual([['cat'], ['grep', 'x'], ['ls']]);
  });

  it('reads a heredoc inside a command substitution', () => {
    expect(argvs('x=$(cat <<EOF\nhi\nEOF\n)\nls')).toEqual([['cat'], [], ['ls']]);
  });
});

describe('parseShell: errors are values, never exceptions', () => {
  const errors: [string, string, RegExp][] = [
    ['an unterminated single quote', "echo 'oops", /unterminated single quote/],
    ['an unterminated double quote', 'echo "oops', /unterminated double quote/],
    ['an unterminated backtick', 'echo `ls', /unterminated backtick/],
    ['an unterminated $(', 'echo $(ls', /unterminated \$\(/],
    ['an unterminated ${', 'echo ${x', /unterminated \$\{/],
    ["an unterminated $'", "echo $'x", /unterminated \$' string/],
    ['an unclosed subshell', '(ls', /expected '\)'/],
    ['a stray )', 'ls )', /unexpected "\)"/],
    ['an unclosed group', '{ ls', /expected '\}'/],
    ['} used as an argument, leaving the group open', '{ echo }', /expected '\}'/],
    ['if without fi', 'if a; then b', /expected 'fi'/],
    ['if without then', 'if a', /expected 'then'/],
    ['for without done', 'for a in b; do c', /expected 'done'/],
    ['case without esac', 'case x in a) b;;', /expected 'esac'/],
    ['a stray reserved word', 'done', /unexpected "done"/],
    [';; outside case', 'a ;; b', /unexpected/],
    ['a redirection without a target', 'ls >', /expected a word after '>'/],
    ['a heredoc without its delimiter line', 'cat <<EOF\nhello', /unterminated heredoc: no line reading "EOF"/],
    ['a heredoc with no body at all', 'cat <<EOF', /unterminated heredoc/],
    ['a lone operator', '| ls', /unexpected/],
  ];
  it.each(errors)('fails on %s', (_name, src, reason) => {
    const r = parseShell(src);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reason).toMatch(reason);
  });

  it('names the offset of the error', () => {
    expect(parseShell("echo 'oops")).toEqual({ ok: false, reason: 'unterminated single quote (at offset 5)' });
  });

  it(`fails on input longer than ${MAX_COMMAND_LENGTH} characters`, () => {
    const r = parseShell(`echo ${'a'.repeat(MAX_COMMAND_LENGTH)}`);
    expect(!r.ok && r.reason).toMatch(/longer than/);
  });

  it(`fails on nesting deeper than ${MAX_NESTING_DEPTH} levels, for every kind of nesting`, () => {
    const deep = MAX_NESTING_DEPTH + 5;
    for (const src of [
      `echo ${'$('.repeat(deep)}x${')'.repeat(deep)}`,
      `${'( '.repeat(deep)}x${' )'.repeat(deep)}`,
      `${'{ '.repeat(deep)}x${'; }'.repeat(deep)}`,
      `echo ${'${x:-'.repeat(deep)}${'}'.repeat(deep)}`,
    ]) {
      const r = parseShell(src);
      expect(!r.ok && r.reason).toMatch(/nested deeper than/);
    }
  });

  it('stays linear on inputs built to make a parser backtrack or rescan', () => {
    // Compared with plain input of the same sizes parsed in the same run, not with a clock: a
    // rescan of 100k characters costs thousands of times more, machine load a few times at most.
    const n = 100_000;
    const elapsed = (sources: string[]): number => {
      const start = performance.now();
      for (const src of sources) parseShell(src);
      return performance.now() - start;
    };
    const hostile = [
      `echo ${'['.repeat(n)}`,
      `echo ${'{'.repeat(n)}`,
      `echo ${'$(('.repeat(60)}${')'.repeat(60)}`,
      `${'(('.repeat(60)}${')'.repeat(60)}`,
      `${'ls | '.repeat(n / 5)}ls`,
      `cat <<EOF\n${'$(a) '.repeat(n / 5)}\nEOF`,
    ];
    const plain = hostile.map((src) => `echo ${'a'.repeat(src.length)}`);
    elapsed(plain); // warm the parser's code first
    expect(elapsed(hostile) / Math.max(elapsed(plain), 1)).toBeLessThan(MAX_HOSTILE_SLOWDOWN);
  });

  it('never throws on random shell-like noise', () => {
    const alphabet = [
      'a',
      ' ',
      '\n',
      '"',
      "'",
      '`',
      '$',
      '(',
      ')',
      '{',
      '}',
      '[',
      ']',
      '<',
      '>',
      '&',
      '|',
      ';',
      '\\',
      '#',
      '=',
      '*',
      '<<',
      'EOF',
      'if',
      'then',
      'fi',
      'case',
      'in',
      'esac',
      ';;',
      'do',
      'done',
      '$((',
      '))',
    ];
    let seed = 42;
    const next = (): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed;
    };
    for (let i = 0; i < 3000; i++) {
      let src = '';
      for (let k = next() % 30; k > 0; k--) src += alphabet[next() % alphabet.length];
      expect(() => parseShell(src)).not.toThrow();
    }
  });
});

describe('parseShell: coproc', () => {
  const body = (src: string): unknown => {
    const r = parseShell(src);
    if (!r.ok) throw new Error(r.reason);
    return r.value.items[0]!.node;
  };

  it('parses a coproc of a group, in the background of a child shell', () => {
    const n = body('coproc { ls; cat a; }') as { type: string; body: { items: { background: boolean; node: { type: string } }[] } };
    expect(n.type).toBe('subshell');
    expect(n.body.items[0]!.background).toBe(true);
    expect(n.body.items[0]!.node.type).toBe('group');
  });

  it('parses a named coproc of a group and of a subshell', () => {
    expect(parseShell('coproc WORKER { sleep 1; }').ok).toBe(true);
    expect(parseShell('coproc W (ls)').ok).toBe(true);
  });

  it('parses a coproc of a simple command, whose first word is the command, not a name', () => {
    const n = body('coproc cat a.txt') as { body: { items: { node: { type: string; words: { value: string }[] } }[] } };
    expect(n.body.items[0]!.node.words.map((w) => w.value)).toEqual(['cat', 'a.txt']);
  });

  it('judges what a coproc runs like any other command', () => {
    const ctx = { cwd: '/w', protectedPaths: ['/w/.gatehouse/'] };
    expect(analyzeShell('coproc { ls; }', ctx).class).toBe('approve');
    expect(analyzeShell('coproc W { rm -rf /; }', ctx).class).toBe('deny');
    expect(analyzeShell('coproc cat > out.txt', ctx).class).toBe('ask');
    expect(analyzeShell('coproc { echo x > /w/.gatehouse/k; }', ctx).class).toBe('deny');
  });
});
