// git subcommands beyond the core read list (read-only.ts): tags, remotes, stashes, config reads,
// refs. The forms that create, delete or rewrite (a tag NAME, `remote add`, `config K V`) ask.
import type { ToolKb } from './types.js';

/** Listing flags shared by `tag` and `for-each-ref`. */
const REF_LIST_FLAGS = ['-l', '--list', '-n', '--column', '--no-column', '--color', '--no-color', '-i', '--ignore-case', '--omit-empty'];

/** Their flags that take a commit or pattern. */
const REF_LIST_VALUES = ['--contains', '--no-contains', '--merged', '--no-merged', '--points-at', '--sort', '--format', '--count'];

/** A repository given as a URL or `host:path`, which a fetch reaches with data in the request. */
const URL_LIKE = { match: /:\/\/|^[^/]*:|@/, why: 'reaches a URL given on the command line, which can carry data out' };

export const GIT: ToolKb = {
  family: 'git',
  programs: [],
  entries: [
    { path: 'tag', class: 'approve', why: 'lists tags', flags: REF_LIST_FLAGS, values: REF_LIST_VALUES, maxPositionals: 0, positionalsWith: ['-l', '--list'] },
    {
      path: 'for-each-ref|show-branch|name-rev|count-objects|var|check-ignore|check-attr|check-ref-format|whatchanged|cherry|diff-tree|verify-commit|verify-tag|fsck',
      class: 'approve',
      why: 'reads refs or objects',
      flags: 'any',
      values: REF_LIST_VALUES,
      unsafe: { '--lost-found': 'writes objects' },
    },
    { path: 'remote', class: 'approve', why: 'lists remotes', flags: ['-v', '--verbose'], maxPositionals: 0 },
    { path: 'remote show|get-url', class: 'approve', why: 'shows a remote', flags: ['-n', '--push', '--all'] },
    {
      path: 'ls-remote',
      class: 'approve',
      why: 'lists refs of a configured remote',
      flags: ['--tags', '-t', '--heads', '-h', '--branches', '-b', '--refs', '-q', '--quiet', '--symref', '--get-url', '--exit-code'],
      values: ['--sort'],
      askPositional: URL_LIKE,
    },
    { path: 'stash list|show', class: 'approve', why: 'reads stashes', flags: 'any', unsafe: { '--output': 'writes a file', '--ext-diff': 'runs an external diff program' } },
    { path: 'reflog', class: 'approve', why: 'reads the reflog', flags: 'any', maxPositionals: 1 },
    { path: 'reflog show', class: 'approve', why: 'reads the reflog', flags: 'any' },
    { path: 'worktree list, submodule status', class: 'approve', why: 'lists worktrees or submodules', flags: ['--porcelain', '-v', '--verbose', '-z', '--recursive', '--cached'] },
    {
      path: 'config',
      class: 'approve',
      why: 'reads configuration',
      flags: [
        '--get',
        '--get-all',
        '--get-regexp',
        '--list',
        '-l',
        '--show-origin',
        '--show-scope',
        '--global',
        '--local',
        '--system',
        '--worktree',
        '--name-only',
        '-z',
        '--null',
        '--includes',
        '--no-includes',
        '--bool',
        '--int',
        '--path',
      ],
      values: ['--file', '-f', '--blob', '--type', '--default'],
      maxPositionals: 1,
      positionalsWith: ['--get', '--get-all', '--get-regexp'],
      askPositional: { match: /^(set|unset|edit|rename-section|remove-section)$/, why: 'changes the configuration' },
    },
    {
      path: 'config get|list',
      class: 'approve',
      why: 'reads configuration',
      flags: ['--all', '--regexp', '--show-origin', '--show-scope', '--global', '--local', '--system', '--name-only', '-z', '--includes'],
      values: ['--file', '-f', '--type', '--default', '--url'],
    },
    { path: 'symbolic-ref', class: 'approve', why: 'reads a symbolic ref', flags: ['--short', '-q', '--quiet'], maxPositionals: 1 },
    { path: 'version|help', class: 'approve', why: 'describes git', flags: ['--build-options', '-a', '--all'], maxPositionals: 0 },
  ],
};
