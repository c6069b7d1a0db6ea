import { describe, expect, it } from 'vitest';
import { analyzeShell, type ShellContext } from '../../../src/core/shell/index.js';

const ctx: ShellContext = { cwd: '/w', home: '/home/u', confine: '/w', protectedPaths: ['/w/.claude/settings.json', '/w/gatehouse.yaml'] };

const restores = (cmd: string): [string, boolean][] => analyzeShell(cmd, ctx).writeTargets.map((t) => [t.path, t.restore === true]);

describe('restores to the committed content', () => {
  const marked: [string, [string, boolean][]][] = [
    ['git checkout -- docs/a.md', [['docs/a.md', true]]],
    [
      'git checkout -- a b',
      [
        ['a', true],
        ['b', true],
      ],
    ],
    ['git checkout HEAD -- docs/a.md', [['docs/a.md', true]]],
    ['git checkout HEAD docs/a.md', [['docs/a.md', true]]],
    ['git checkout docs/a.md', [['docs/a.md', true]]],
    ['git restore docs/a.md', [['docs/a.md', true]]],
    ['git restore --worktree docs/a.md', [['docs/a.md', true]]],
    ['git restore -SW docs/a.md', [['docs/a.md', true]]],
    ['git restore --source=HEAD docs/a.md', [['docs/a.md', true]]],
    ['git restore -s HEAD docs/a.md', [['docs/a.md', true]]],
    ['git -C docs restore a.md', [['docs/a.md', true]]],
    ['cd docs && git checkout -- a.md', [['/w/docs/a.md', true]]],
    ['git checkout HEAD~1 -- docs/a.md', [['docs/a.md', false]]],
    ['git checkout main -- docs/a.md', [['docs/a.md', false]]],
    ['git restore --source=HEAD~2 docs/a.md', [['docs/a.md', false]]],
    ['git restore --ours docs/a.md', [['docs/a.md', false]]],
    ['git checkout -p -- docs/a.md', [['docs/a.md', false]]],
    ['git restore --staged docs/a.md', []],
    ['git checkout -b feature', []],
  ];
  it.each(marked)('%j', (cmd, expected) => {
    expect(restores(cmd)).toEqual(expected);
  });

  it('asks for a restore outside the supervisor files, as before', () => {
    expect(analyzeShell('git checkout -- docs/a.md', ctx).class).toBe('ask');
  });

  const deny: [string, string][] = [
    ['a restore of a protected file', 'git checkout -- .claude/settings.json'],
    ['a restore of a folder holding one', 'git checkout -- .claude'],
    ['a restore of everything', 'git checkout -- .'],
    ['a restore by a pathspec glob, which crosses folders', "git checkout -- '*.json'"],
    ['a restore by pathspec magic', "git restore ':/gatehouse.yaml'"],
    ['a restore of paths read from a file', 'git restore --pathspec-from-file=list'],
    ['a restore without -- of a protected file', 'git checkout gatehouse.yaml'],
  ];
  it.each(deny)('refuses %s, naming the restore by name', (_name, cmd) => {
    const a = analyzeShell(cmd, ctx);
    expect(a.class, a.reason).toBe('deny');
    expect(a.reason).toMatch(/Instead, restore the changed files by name/);
  });

  it('shows a pathspec glob as written', () => {
    expect(analyzeShell("git checkout -- 'src/*.ts'", ctx).writeTargets.map((t) => [t.path, t.literal])).toEqual([['src/*.ts', false]]);
    expect(analyzeShell("git checkout -- 'src/*.ts'", ctx).class).toBe('ask');
  });
});
