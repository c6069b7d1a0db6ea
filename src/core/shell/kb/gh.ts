// GitHub CLI: viewing and listing pull requests, issues, runs and releases. `auth token`,
// `auth status -t`, `api` (it can POST) and anything that opens a browser ask.
import type { ToolKb } from './types.js';

/** Opening a browser runs a program Gatehouse does not choose. */
const WEB = { '--web': 'opens a browser', '-w': 'opens a browser' };

export const GH: ToolKb = {
  family: 'gh',
  programs: ['gh'],
  globals: { values: ['-R', '--repo'] },
  entries: [
    { path: 'auth token', class: 'ask', why: 'prints the GitHub token' },
    { path: 'config get', class: 'ask', why: 'can print a stored token' },
    { path: 'auth status', class: 'approve', why: 'shows the login, token masked', flags: 'any', unsafe: { '--show-token': 'prints the token', '-t': 'prints the token' } },
    {
      path: 'pr|issue view|list|status|diff|checks',
      class: 'approve',
      why: 'reads pull requests or issues',
      flags: 'any',
      values: [
        '--json',
        '-q',
        '--jq',
        '-t',
        '--template',
        '-L',
        '--limit',
        '-s',
        '--state',
        '-A',
        '--author',
        '-a',
        '--assignee',
        '-l',
        '--label',
        '-B',
        '--base',
        '-H',
        '--head',
        '-S',
        '--search',
        '--color',
      ],
      unsafe: WEB,
    },
    {
      path: 'run|workflow|release|repo|gist|label|cache|ruleset|codespace|org|project|variable|secret|extension|alias view|list|ls',
      class: 'approve',
      why: 'reads the repository',
      flags: 'any',
      values: ['--json', '-q', '--jq', '-t', '--template', '-L', '--limit', '-b', '--branch', '--workflow', '-u', '--user', '-s', '--status', '-e', '--event', '-j', '--job'],
      unsafe: WEB,
    },
    {
      path: 'search prs|issues|repos|code|commits',
      class: 'approve',
      why: 'searches GitHub',
      flags: 'any',
      values: ['--json', '-q', '--jq', '-L', '--limit', '--repo', '--owner', '--state', '--language'],
      unsafe: WEB,
    },
    { path: 'status|version|help, config list', class: 'approve', why: 'reads the CLI state', flags: 'any' },
  ],
};
