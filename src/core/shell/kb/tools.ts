// Linters in check mode, system package queries, and programs known only for `--version` and
// `--help`. Linters whose configuration is code (eslint, pylint, mypy plugins) are not here: they ask.
import type { ToolKb } from './types.js';

export const RUFF: ToolKb = {
  family: 'ruff',
  programs: ['ruff'],
  entries: [
    {
      path: 'check',
      class: 'approve',
      why: 'reports lint findings',
      flags: 'any',
      values: ['--select', '--ignore', '--extend-select', '--config', '--output-format', '--target-version', '--line-length', '--exclude'],
      unsafe: {
        '--fix': 'writes fixes',
        '--unsafe-fixes': 'writes fixes',
        '--add-noqa': 'writes files',
        '-o': 'writes a file',
        '--output-file': 'writes a file',
        '-w': 'keeps running',
        '--watch': 'keeps running',
      },
    },
    { path: 'format', class: 'approve', why: 'reports formatting', flags: 'any', requires: ['--check', '--diff'], values: ['--config', '--line-length', '--exclude'] },
    { path: 'version|rule|linter|config', class: 'approve', why: 'describes ruff', flags: 'any' },
  ],
};

export const CHECKERS: ToolKb = {
  family: 'shellcheck/hadolint/yamllint',
  programs: ['shellcheck', 'hadolint', 'yamllint', 'actionlint', 'codespell'],
  entries: [
    {
      path: '',
      class: 'approve',
      why: 'reports findings',
      flags: 'any',
      values: ['-f', '--format', '-s', '--shell', '-e', '--exclude', '-S', '--severity', '-c', '--config-file', '-d', '--config-data'],
      unsafe: { '-w': 'writes fixes', '--write-changes': 'writes fixes', '-i': 'asks interactively' },
    },
  ],
};

export const FORMAT_CHECKS: ToolKb = {
  family: 'black/isort/rustfmt',
  programs: ['black', 'isort', 'rustfmt'],
  entries: [
    {
      path: '',
      class: 'approve',
      why: 'reports formatting',
      flags: 'any',
      requires: ['--check', '--diff', '--check-only'],
      values: ['-l', '--line-length', '--edition', '--config-path', '--profile'],
    },
  ],
};

export const GOFMT: ToolKb = {
  family: 'gofmt/clang-format',
  programs: ['gofmt', 'clang-format'],
  entries: [
    {
      path: '',
      class: 'approve',
      why: 'prints formatted code or a diff',
      flags: 'any',
      values: ['-r', '--style', '--assume-filename'],
      unsafe: { '-w': 'writes files', '-i': 'edits files in place' },
    },
  ],
};

export const BREW: ToolKb = {
  family: 'brew',
  programs: ['brew'],
  entries: [
    {
      path: 'info|list|ls|search|outdated|deps|uses|leaves|config|desc|--prefix|--cellar|--repository|--cache|--env|tap-info|commands|help|cat|formulae|casks, services list',
      class: 'approve',
      why: 'reads installed or available packages',
      flags: 'any',
    },
  ],
};

export const SYSTEM_PACKAGES: ToolKb = {
  family: 'apt/dpkg/rpm',
  programs: ['apt', 'apt-cache', 'dpkg', 'dpkg-query', 'rpm', 'dnf', 'yum', 'apk', 'snap', 'flatpak', 'conda', 'mamba'],
  longSingleDash: false,
  entries: [
    { path: 'list|show|search|policy|depends|rdepends|showpkg|madison|info, env list', class: 'approve', why: 'reads the package database', flags: 'any', values: ['-n', '--name'] },
    {
      path: '',
      class: 'approve',
      why: 'queries the package database',
      flags: ['-l', '-L', '-s', '-S', '-W', '--list', '--listfiles', '--status', '--search', '--show', '-q', '-qa', '-qi', '-ql', '-qf', '-qR', '--query', '--print-architecture'],
      values: ['-f', '--showformat', '--queryformat'],
    },
  ],
};

/** Programs approved only as `--version`/`--help` with nothing else (the interpreter allows that for every family). */
export const VERSION_ONLY: ToolKb = {
  family: 'version',
  programs: [
    ...['node', 'nodejs', 'deno', 'bun', 'python', 'python3', 'ruby', 'perl', 'php', 'java', 'javac', 'rustc', 'rustup', 'gcc', 'g++', 'cc', 'clang', 'clang++'],
    ...['make', 'cmake', 'ninja', 'meson', 'tsc', 'eslint', 'prettier', 'mypy', 'pylint', 'flake8', 'pytest', 'jest', 'vitest', 'webpack', 'vite', 'esbuild'],
    ...['dotnet', 'mvn', 'gradle', 'sbt', 'kotlin', 'swift', 'zig', 'ghc', 'stack', 'cabal', 'elixir', 'mix', 'erl', 'lua', 'ansible', 'vagrant', 'packer'],
    ...['curl', 'wget', 'ssh', 'rsync', 'jq', 'sqlite3', 'psql', 'mysql', 'redis-cli', 'vault', 'consul', 'nomad', 'heroku', 'flyctl', 'vercel', 'netlify'],
    ...['poetry', 'pipenv', 'virtualenv', 'nvm', 'volta', 'corepack', 'kind', 'minikube', 'k9s', 'kustomize', 'skaffold', 'tilt', 'argocd', 'istioctl'],
  ],
  entries: [{ path: 'version', class: 'approve', why: 'prints the version', flags: ['--short', '--client'], maxPositionals: 0 }],
};
