import { describe, expect, it } from 'vitest';
import { analyzeShell, type ShellContext } from '../../../src/core/shell/index.js';

const ctx: ShellContext = {
  cwd: '/w',
  home: '/home/u',
  confine: '/w',
  protectedPaths: ['/home/u/.gitconfig', '/home/u/.config/git/config', '/etc/gitconfig', '/w/.git/config', '/w/.git/hooks/', '/w/.git/info/'],
};

const targets = (cmd: string, c: ShellContext = ctx): string[] => analyzeShell(cmd, c).writeTargets.map((t) => t.path);

describe('commands that write git control files', () => {
  const deny: [string, string, RegExp][] = [
    ['git config of a hook path', 'git config core.hooksPath /tmp/h', /\/w\/\.git\/config.*Instead, give a setting to one command with `git -c/],
    ['git config from a subfolder', 'cd src && git config core.fsmonitor ./x', /\/w\/\.git\/config/],
    ['git -C a subfolder', 'git -C src/deep config alias.x "!sh"', /\/w\/\.git\/config/],
    ['git config set (new syntax)', 'git config set core.fsmonitor x', /\/w\/\.git\/config/],
    ['git config --add', 'git config --add core.hooksPath x', /\/w\/\.git\/config/],
    ['git config --unset', 'git config --unset core.hooksPath', /\/w\/\.git\/config/],
    ['git config --edit', 'git config -e', /\/w\/\.git\/config/],
    ['git config --worktree', 'git config --worktree core.hooksPath x', /\/w\/\.git\/config/],
    ['git config --global', 'git config --global core.fsmonitor evil', /\/home\/u\/\.gitconfig/],
    ['git config --system', 'git config --system core.hooksPath x', /\/etc\/gitconfig/],
    ['git config --file', 'git config --file ~/.gitconfig alias.x "!sh"', /\/home\/u\/\.gitconfig/],
    ['git config -f relative to -C', 'git -C .git config -f config core.hooksPath x', /\.git\/config/],
    ['git --git-dir config', 'git --git-dir=.git config core.hooksPath x', /\.git\/config/],
    ['git config with a variable argument', 'git config $K x', /\/w\/\.git\/config/],
    ['git with a subcommand only known at run time', 'git $SUB core.hooksPath x', /\/w\/\.git\/config.*name the git subcommand literally/],
    ['git remote add', 'git remote add evil https://example.com/x', /Instead, use the URL directly/],
    ['git remote set-url', 'git remote set-url origin https://example.com/x', /\/w\/\.git\/config/],
    ['git branch -u', 'git branch -u origin/main', /Instead, leave the upstream unset/],
    ['git branch --set-upstream-to', 'git branch --set-upstream-to=origin/main', /leave the upstream unset/],
    ['git checkout --track', 'git checkout --track origin/feature', /leave the upstream unset/],
    ['git switch -c -t', 'git switch -c f -t origin/f', /leave the upstream unset/],
    ['git push -u', 'git push -u origin HEAD', /Instead, leave the upstream unset: push with `git push origin BRANCH` \(no -u\)/],
    ['git push --set-upstream', 'git push --set-upstream origin f', /leave the upstream unset/],
    ['git submodule add', 'git submodule add https://example.com/x vendor/x', /ask the operator/],
    ['git submodule update --init', 'git submodule update --init', /ask the operator/],
    ['git sparse-checkout', 'git sparse-checkout set src', /ask the operator/],
    ['git lfs install', 'git lfs install', /\.git\/hooks/],
    ['git maintenance start', 'git maintenance start', /\/home\/u\/\.gitconfig/],
    ['husky', 'npx husky', /\.git\/hooks.*ask the operator/],
    ['husky install through pnpm', 'pnpm exec husky install', /\.git\/hooks/],
    ['pre-commit install', 'pre-commit install', /\.git\/hooks/],
    ['pre-commit as a python module', 'python3 -m pre_commit install', /\.git\/hooks/],
    ['lefthook install', 'lefthook install', /\.git\/hooks/],
    ['simple-git-hooks', 'npx simple-git-hooks', /\.git\/hooks/],
    ['git init of this repository', 'git init', /\.git\/hooks/],
    ['a hook written by hand', 'cp /tmp/x .git/hooks/pre-commit', /\.git\/hooks/],
    ['an exclude rule written by hand', 'echo secret >> .git/info/exclude', /\.git\/info/],
    ['GIT_DIR given to the command', 'GIT_DIR=/w/.git git -C /tmp config core.hooksPath x', /only known at run time/],
    ['GIT_DIR given through env', 'env GIT_DIR=/w/.git git -C /tmp config core.hooksPath x', /only known at run time/],
    ['GIT_DIR exported earlier in the line', 'export GIT_DIR=/w/.git; git -C /tmp config core.hooksPath x', /\/w\/\.git\/config/],
    ['GIT_DIR set earlier in the line, with --file', 'export GIT_DIR=/w/.git; git -C /tmp config --file "$GIT_DIR/config" core.hooksPath x', /\/w\/\.git\/config/],
  ];
  it.each(deny)('refuses %s', (_name, cmd, reason) => {
    const a = analyzeShell(cmd, ctx);
    expect(a.class, a.reason).toBe('deny');
    expect(a.reason).toMatch(reason);
    expect(a.reason).toMatch(/\. Instead, .+\.$|Do not retry it or reach the same effect another way\.$/);
  });

  const reads: string[] = [
    'git config --get user.name',
    'git config user.name',
    'git config -l',
    'git config --list --show-origin',
    'git config get core.hooksPath',
    'git config --get-regexp alias',
    'git remote -v',
    'git remote get-url origin',
    'git branch -a',
    'git push origin HEAD',
    'git sparse-checkout list',
    'git submodule status',
    'pre-commit run --all-files',
    'git -C /tmp/other config user.name x',
  ];
  it.each(reads)('finds no protected control file written by %j', (cmd) => {
    expect(analyzeShell(cmd, ctx).class).not.toBe('deny');
  });

  it('reports the control file a command writes as a literal target', () => {
    expect(targets('git config core.hooksPath x')).toEqual(['/w/.git/config']);
    expect(targets('git config --global a.b c')).toEqual(['/home/u/.gitconfig', '/home/u/.config/git/config']);
    expect(targets('cd /tmp && git init x')).toEqual(['/tmp/x/.git/hooks', '/tmp/x/.git/config']);
    expect(targets('git sparse-checkout set src')).toEqual(['/w/.git/config', '/w/.git/info/sparse-checkout']);
  });

  it('lets a control file that already differs from its baseline be written back', () => {
    const restorable = (abs: string): boolean => abs === '/w/.git/config';
    expect(analyzeShell('git config --unset core.hooksPath', { ...ctx, restorable }).class).toBe('ask');
    expect(analyzeShell('git config core.hooksPath x', { ...ctx, restorable }).class).toBe('ask');
    expect(analyzeShell('husky', { ...ctx, restorable }).class).toBe('deny');
  });
});
