import { spawnSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { changedSince, git, gitEnv, recordBaseline, repo, tempDir, write } from './scope-fixture.js';

// Rules that exercise git's layering: nested .gitignore files, negations, folder-only and
// anchored patterns, a deeper file re-including what a shallower one excludes, a
// .gitignore re-including what info/exclude excludes, and core.excludesFile.
const RULES: Record<string, string> = {
  '.gitignore': [
    '# comment',
    '*.log',
    '!keep.log',
    '/build/',
    'docs/**/*.tmp',
    'out',
    'vendor/',
    '!/lib/vendor/',
    'logs/*',
    '!logs/important/',
    'a/**/b',
    '\\#hash',
    '[Tt]emp*',
    '*.o',
    '!special.o',
    'node_modules',
    'deep/secret',
    'cache/',
    '!vendor2/',
    'trailing-space\\ ',
    '',
  ].join('\n'),
  'sub/.gitignore': ['!*.log', 'local.txt', '/anchored.txt', 'nested/', '!out', '!cache/', ''].join('\n'),
  'sub/inner/.gitignore': '*.ts\n!keep.ts\n',
  'pkg/app/.gitignore': 'gen/\n!gen.keep\n',
};
const INFO_EXCLUDE = 'excluded-by-info.txt\nvendor2/\n*.dat\n';
const GLOBAL_EXCLUDES = 'global-ignored.txt\n*.bak\n';

const FILES = [
  'app.log',
  'keep.log',
  'build/x.js',
  'src/build/y.js',
  'docs/a/b/c.tmp',
  'docs/c.tmp',
  'docs/c.md',
  'out',
  'src/out/z.txt',
  'vendor/v.js',
  'lib/vendor/w.js',
  'logs/a.txt',
  'logs/important/b.txt',
  'a/x/y/b',
  'a/b',
  'a/c',
  '#hash',
  'Temp1.txt',
  'temp2.txt',
  'tamp.txt',
  'x.o',
  'special.o',
  'node_modules/p/index.js',
  'src/node_modules/q.js',
  'deep/secret',
  'src/deep/secret',
  'sub/app.log',
  'sub/local.txt',
  'sub/anchored.txt',
  'sub/x/anchored.txt',
  'sub/nested/n.txt',
  'sub/out',
  'sub/cache/c.txt',
  'sub/inner/a.ts',
  'sub/inner/keep.ts',
  'sub/inner/b.js',
  'cache/c.txt',
  'excluded-by-info.txt',
  'sub/excluded-by-info.txt',
  'vendor2/x.txt',
  'vendor2/y.dat',
  'global-ignored.txt',
  'z.bak',
  'trailing-space ',
  'pkg/app/gen/g.js',
  'pkg/app/gen.keep',
  'pkg/app/main.ts',
  'pkg/app/x.log',
  'pkg/other.txt',
];

/** A repository with the rules committed, info/exclude and a global excludes file in force. */
function rulesRepo(): string {
  const root = repo({ ...RULES, 'tracked.txt': 't\n' });
  writeFileSync(join(root, '.git/info/exclude'), INFO_EXCLUDE);
  const globalIgnore = join(tempDir(), 'global-ignore');
  writeFileSync(globalIgnore, GLOBAL_EXCLUDES);
  writeFileSync(process.env.GIT_CONFIG_GLOBAL!, `[core]\n\texcludesFile = ${globalIgnore}\n`);
  // A file tracked although the rules ignore it stays in scope.
  write(root, 'forced.log', 'f\n');
  git(root, 'add', '-f', 'forced.log');
  git(root, 'commit', '-q', '--no-gpg-sign', '-m', 'forced');
  return root;
}

function lines(out: string): string[] {
  return out
    .split('\0')
    .filter((l) => l !== '')
    .sort();
}

/** Every file under `dir` (skipping .git), relative to it. */
function allFiles(dir: string, rel = ''): string[] {
  return readdirSync(join(dir, rel), { withFileTypes: true }).flatMap((e) => {
    const p = rel === '' ? e.name : `${rel}/${e.name}`;
    if (e.name === '.git') return [];
    return e.isDirectory() ? allFiles(dir, p) : [p];
  });
}

describe('ignore rules frozen at baseline follow git', () => {
  it.each([
    ['at the top level', ''],
    ['in a subfolder of the repository', 'pkg/app'],
  ])('records exactly the files git lists as tracked or untracked, and leaves out exactly those it ignores (%s)', async (_name, sub) => {
    const root = rulesRepo();
    for (const f of FILES) write(root, f, `${f}\n`);
    const wt = join(root, sub);
    const b = await recordBaseline(wt);
    const recorded = b.files.map((r) => r[0]).sort();
    const gitInScope = [...new Set(lines(git(wt, 'ls-files', '-z', '--cached', '--others', '--exclude-standard')))].sort();
    expect(recorded).toEqual(gitInScope);
    const ignored = allFiles(wt)
      .filter((f) => !recorded.includes(f))
      .sort();
    expect(ignored).toEqual(lines(git(wt, 'ls-files', '-z', '--others', '--ignored', '--exclude-standard')));
    expect(ignored.length).toBeGreaterThan(sub === '' ? 20 : 1);
  });

  it('reports as created exactly the new files git lists as untracked', async () => {
    const root = rulesRepo();
    const b = await recordBaseline(root);
    for (const f of FILES) write(root, f, `${f}\n`);
    const created = (await changedSince(root, b)).map((c) => `${c.change} ${c.path}`);
    const untracked = lines(git(root, 'ls-files', '-z', '--others', '--exclude-standard')).map((p) => `created ${p}`);
    expect(created.sort()).toEqual(untracked);
    for (const f of FILES) {
      const ignoredByGit = spawnSync('git', ['check-ignore', '-q', '--no-index', f], { cwd: root, env: gitEnv() }).status === 0;
      expect([f, created.includes(`created ${f}`)]).toEqual([f, !ignoredByGit]);
    }
  });
});
