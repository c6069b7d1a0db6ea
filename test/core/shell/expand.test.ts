import { describe, expect, it } from 'vitest';
import { analyzeShell, type ShellContext } from '../../../src/core/shell/index.js';
import { expandWord, type ExpandEnv, type Field } from '../../../src/core/shell/expand.js';
import { parseShell } from '../../../src/core/shell/parser.js';
import { canLeave, reaches, toPatterns } from '../../../src/core/shell/path-pattern.js';

const PROTECTED = ['/home/u/.claude/settings.json', '/home/u/.gitconfig', '/home/u/.config/gatehouse/', '/home/u/.local/state/gatehouse/', '/w/.claude/settings.json', '/w/gatehouse.yaml'];
const ctx: ShellContext = { cwd: '/w', home: '/home/u', confine: '/w', protectedPaths: PROTECTED };

function word(src: string) {
  const r = parseShell(`echo ${src}`);
  if (!r.ok || r.value.items[0]!.node.type !== 'simple') throw new Error(src);
  return r.value.items[0]!.node.words[1]!;
}

const env = (vars: Record<string, string[] | null> = {}): ExpandEnv => ({
  lookup: (name) => {
    if (name === 'HOME') return [[{ kind: 'text', text: '/home/u' }]];
    if (!(name in vars)) return undefined;
    const v = vars[name];
    return v === null || v === undefined ? null : v.map((t): Field => [{ kind: 'text', text: t }]);
  },
  ifsChanged: false,
});

/** Each field as text, globs shown as written, unknown parts as ‹any›. */
function shown(src: string, vars: Record<string, string[] | null> = {}): string[] {
  return expandWord(word(src), env(vars)).fields.map((f) => f.map((p) => (p.kind === 'text' || p.kind === 'glob' ? p.text : `‹${p.kind}›`)).join(''));
}

describe('expandWord', () => {
  const cases: [string, string[], Record<string, string[] | null>?][] = [
    ['~', ['/home/u']],
    ['~/.gitconfig', ['/home/u/.gitconfig']],
    ['"$HOME"/.gitconfig', ['/home/u/.gitconfig']],
    ['${HOME}/x', ['/home/u/x']],
    ['"~"/x', ['~/x']],
    ['~"x"', ['~x']],
    ['~root/x', ['‹any›']],
    ["$'\\x2e'claude", ['.claude']],
    ['a{b,c}d', ['abd', 'acd']],
    ['{a,b}{1,2}', ['a1', 'a2', 'b1', 'b2']],
    ['x{1..3}', ['x1', 'x2', 'x3']],
    ['"{a,b}"', ['{a,b}']],
    ['*.ts', ['*.ts']],
    ['"*".ts', ['*.ts']],
    ['$X', ['a', 'b'], { X: ['a b'] }],
    ['"$X"', ['a b'], { X: ['a b'] }],
    ['$X/y', ['*/y'], { X: ['*'] }],
    ['"$X"/y', ['*/y'], { X: ['*'] }],
    ['$X', ['one', 'two'], { X: ['one', 'two'] }],
    ['$UNSET/x', ['‹any›']],
    ['$X', ['‹any›'], { X: null }],
    ['out.$$', ['out.‹digits›']],
    ['$RANDOM', ['‹digits›']],
    ['$(pwd)/x', ['‹any›']],
    ['`pwd`/x', ['‹any›']],
    ['@(a|b)', ['‹any›']],
  ];
  it.each(cases)('expands %j', (src, fields, vars = {}) => {
    expect(shown(src, vars)).toEqual(fields);
  });

  it('marks a word exact only when no variable has alternative values', () => {
    expect(expandWord(word('$X'), env({ X: ['a'] })).exact).toBe(true);
    expect(expandWord(word('$X'), env({ X: ['a', 'b'] })).exact).toBe(false);
  });
});

describe('path patterns', () => {
  const pattern = (src: string, cwd = '/w') => expandWord(word(src), env()).fields.flatMap((f) => toPatterns(f, [cwd]));
  it('finds the protected paths a glob can reach', () => {
    expect(pattern('~/.local/state/gatehouse/*/policy.json').map((p) => reaches(p, '/home/u/.local/state/gatehouse', false))).toEqual(['inside']);
    expect(pattern('.claude/set*').map((p) => reaches(p, '/w/.claude/settings.json', false))).toEqual(['inside']);
    expect(pattern('.claude/*.ts').map((p) => reaches(p, '/w/.claude/settings.json', false))).toEqual([null]);
    expect(pattern('*').map((p) => reaches(p, '/w/.claude/settings.json', true))).toEqual(['holds']);
    expect(pattern('src/**').map((p) => reaches(p, '/w/src/a/b/c', false))).toEqual(['inside']);
    expect(pattern('/W/GATEHOUSE.yaml').map((p) => reaches(p, '/w/gatehouse.yaml', false))).toEqual(['inside']);
  });

  it('matches a glob with many stars in time linear in its length', () => {
    const started = Date.now();
    const many = pattern(`.claude/${'*a'.repeat(500)}b`);
    expect(many.map((p) => reaches(p, `/w/.claude/${'a'.repeat(200)}c`, false))).toEqual([null]);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('tells whether a pattern can leave a folder', () => {
    expect(pattern('src/*.ts').map((p) => canLeave(p, '/w'))).toEqual([false]);
    expect(pattern('../*').map((p) => canLeave(p, '/w'))).toEqual([true]);
    expect(pattern('src/*/../../..').map((p) => canLeave(p, '/w'))).toEqual([true]);
    expect(pattern('/w*/x').map((p) => canLeave(p, '/w'))).toEqual([true]);
    expect(pattern('**/x').map((p) => canLeave(p, '/w'))).toEqual([false]);
    expect(pattern('/**/x').map((p) => canLeave(p, '/w'))).toEqual([true]);
    // Before bash 5.2, `.*` matches `..`.
    expect(pattern('.*').map((p) => canLeave(p, '/w'))).toEqual([true]);
  });
});

describe('targets that expand to protected paths or out of the worktree', () => {
  const deny: [string, string][] = [
    ['~ to the user settings', 'echo \'{"disableAllHooks":true}\' > ~/.claude/settings.json'],
    ['$HOME to the global git config', 'echo x >> "$HOME/.gitconfig"'],
    ['${HOME}', 'echo x >> ${HOME}/.gitconfig'],
    ['~ to the user config folder', 'echo x > ~/.config/gatehouse/x'],
    ['a glob into the state folder', 'cp evil.json ~/.local/state/gatehouse/*/sessions/*/policy.json'],
    ['a glob over the settings', 'echo x | tee .claude/set*.json'],
    ['a bracket glob', 'echo x > .claude/settings.js[o]n'],
    ['a brace list', 'echo x > .claude/settings.js{on,}'],
    ['an ANSI-C spelling', "echo x > $'\\x2eclaude/settings.json'"],
    ['$PWD', 'echo x > "$PWD/gatehouse.yaml"'],
    ['${PWD} after a cd', 'cd src && echo x > ${PWD}/../gatehouse.yaml'],
    ['a variable assigned earlier', 'X=~/.claude; echo x > $X/settings.json'],
    ['a variable appended to', 'F=$HOME; F+=/.gitconfig; echo x >> "$F"'],
    ['an exported variable', 'export D=~/.claude && cp /tmp/x "$D/settings.json"'],
    ['a variable assigned in an if', 'if true; then D=~/.claude; fi; echo x > $D/settings.json'],
    ['a loop variable over a glob', 'for f in .claude/*; do echo x > "$f"; done'],
    ['a variable read at run time', 'read f < list; echo x > "$f"'],
    ['an unknown variable', 'echo x > "$OUT"'],
    ['a substitution', 'echo x > "$(cat target)"'],
    ['an unknown user home', 'echo x > ~root/.gitconfig'],
    ['a case-changed spelling', 'echo x > .Claude/Settings.json'],
    ['a cd into the protected folder', 'cd ~/.claude && echo x > settings.json'],
    ['a plain cd home', 'cd; echo x > .gitconfig'],
    ['a cd that may fail before the write', 'cd nowhere; echo x > gatehouse.yaml'],
    ['a cd whose failure runs the write', 'cd src || echo x > gatehouse.yaml'],
    ['a cd whose failure skips to the write', 'cd src && true || echo x > gatehouse.yaml'],
    ['a cd through builtin', 'builtin cd ~/.config && echo x > gatehouse/config.yaml'],
    ['a cd through eval, which runs in this shell', "eval 'cd ~/.claude'; echo x > settings.json"],
    ['a cd inside a function that is called', 'f() { cd ~/.claude; }; f; echo x > settings.json'],
    ['a cd to a folder only known at run time', 'cd "$D" && echo x > settings.json'],
    ['a command name only known at run time, which may be cd', '$C ~/.claude; echo x > settings.json'],
    ['a sourced file, which may change anything', 'source env.sh; echo x > ~/.gitconfig.bak'],
    ['CDPATH set before a relative cd', 'CDPATH=~; cd .config && echo x > gatehouse/x'],
    ['command', 'command tee ~/.gitconfig < x'],
    ['exec', 'exec 3> ~/.gitconfig'],
    ['env', 'env -i cp x ~/.gitconfig'],
    ['a subshell', '(cd ~ && echo x > .gitconfig)'],
    ['sh -c', "sh -c 'echo x > ~/.gitconfig'"],
    ['sh -c with the home folder from outside', 'sh -c "echo x > $HOME/.gitconfig"'],
    ['dd of= with a tilde', 'dd if=x of=~/.gitconfig'],
    ['a glob out of the worktree', "sed -i 's/a/b/' ../*"],
    ['a glob in another folder', 'rm -f /tmp/*.log'],
    ['a delete of every dot file', 'rm -rf .*'],
    ['a path through /proc/self/cwd', 'echo x > /proc/self/cwd/gatehouse.yaml'],
    ['a path through /proc/*/root', 'cp x /proc/1/root/home/u/.gitconfig'],
    ['a glob through /proc', 'echo x > /proc/*/cwd/gatehouse.yaml'],
  ];
  it.each(deny)('refuses %s', (_name, cmd) => {
    const a = analyzeShell(cmd, ctx);
    expect(a.class, a.reason).toBe('deny');
    expect(a.reason).toMatch(/\. (Instead, .+|Do not retry it or reach the same effect another way)\.$/);
  });

  const intoFolders: [string, string][] = [
    ['a copy into a folder that holds the user config', 'cp -r gatehouse ~/.config'],
    ['a move whose source lands on a protected file', 'mv settings.json .claude'],
    ['xargs copying names only known at run time into a protected folder', 'xargs cp -t ~/.config/gatehouse < list'],
    ['an extraction into a folder holding a protected folder', 'tar -xzf x.tgz -C ~/.config'],
    ['an extraction in a folder holding protected files', 'tar -xzf x.tgz'],
    ['an unzip in a folder holding protected files', 'unzip x.zip'],
    ['rsync into a folder holding a protected folder', 'rsync -a gatehouse ~/.config/'],
    ['a clone into a protected folder', 'git clone https://example.com/x.git ~/.config/gatehouse'],
    ['a worktree in a protected folder', 'git worktree add ~/.config/gatehouse'],
  ];
  it.each(intoFolders)('refuses %s', (_name, cmd) => {
    const a = analyzeShell(cmd, ctx);
    expect(a.class, a.reason).toBe('deny');
  });

  const notIntoProtected: string[] = [
    'mv notes.md .claude',
    'cp src/a.ts src/b.ts',
    'cd src && tar -xzf x.tgz',
    'unzip -l x.zip',
    'tar -xzf x.tgz -C vendor',
    'git clone https://example.com/x.git',
    'rsync -a src/ backup/',
  ];
  it.each(notIntoProtected)('does not refuse %j', (cmd) => {
    expect(analyzeShell(cmd, ctx).class).not.toBe('deny');
  });

  it('names the way that is allowed', () => {
    expect(analyzeShell('echo x > "$OUT"', ctx).reason).toMatch(/which can be a path inside the supervisor's own files \(.+\)\. Instead, write the path literally/);
    expect(analyzeShell("sed -i 's/a/b/' ../*", ctx).reason).toMatch(/which can be outside \/w\. Instead, name the path literally, inside \/w\.$/);
    expect(analyzeShell('cd "$D" && echo x > f', ctx).reason).toMatch(/Instead, cd to a literal folder joined to the command with &&, or give the path from \/\.$/);
    expect(analyzeShell('cd nowhere; echo x > gatehouse.yaml', ctx).reason).toMatch(/if a cd before it fails, it writes \/w\/gatehouse\.yaml.*Instead, join the cd and the command with &&/);
  });

  it('reports targets expanded to known paths as literal, so the write gate checks them', () => {
    const a = analyzeShell('X=out; echo x > ~/notes.txt; touch src/{a,b}.ts $X', ctx);
    expect(a.writeTargets.map((t) => [t.path, t.literal])).toEqual([
      ['/home/u/notes.txt', true],
      ['src/a.ts', true],
      ['src/b.ts', true],
      ['out', true],
    ]);
  });

  const ask: string[] = [
    "sed -i 's/a/b/' src/*.ts",
    'for f in src/*.ts; do sed -i s/a/b/ "$f"; done',
    'rm -rf build/*',
    'echo x > out.$$.log',
    'cd src && echo x > ../notes.txt',
    'cd src; echo x > notes.txt',
    'touch src/{a,b}.ts',
    'X=src/a.ts; echo x > $X',
  ];
  it.each(ask)('still only asks for %j', (cmd) => {
    const a = analyzeShell(cmd, ctx);
    expect(a.class, a.reason).toBe('ask');
  });

  it('takes ~ to be anywhere when the home folder is not known', () => {
    expect(analyzeShell('echo x > ~/notes.txt', { ...ctx, home: null }).class).toBe('deny');
    expect(analyzeShell('echo x > ~/notes.txt', { cwd: '/w', protectedPaths: [] }).class).toBe('ask');
  });

  it('lets a write to a protected file that already differs from its baseline through to review', () => {
    const restorable = (abs: string): boolean => abs === '/w/gatehouse.yaml';
    expect(analyzeShell('cp /tmp/gatehouse.yaml.orig gatehouse.yaml', { ...ctx, restorable }).class).toBe('ask');
    const a = analyzeShell('cat /tmp/gatehouse.yaml.orig > gatehouse.yaml', { ...ctx, restorable });
    expect(a.class, a.reason).toBe('ask');
    expect(a.reason).toMatch(/already differs from its baseline/);
    expect(analyzeShell('cp x .claude/settings.json', { ...ctx, restorable }).class).toBe('deny');
    expect(analyzeShell('cp x gatehouse.*', { ...ctx, restorable }).class).toBe('deny');
  });
});
