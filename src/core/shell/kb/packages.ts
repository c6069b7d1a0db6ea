// Package managers' info and list commands: npm, pnpm, yarn, pip, uv, cargo, go. They read
// manifests, lock files and registries; installs, scripts, builds and token commands ask.
import type { ToolKb } from './types.js';

/** npm config that points at another registry or config file is fine to read with; these change what runs. */
const NPM_UNSAFE = { '--userconfig': 'reads a config Gatehouse does not see', '--globalconfig': 'reads a config Gatehouse does not see', '--script-shell': 'changes the shell scripts run in' };

export const NPM: ToolKb = {
  family: 'npm',
  programs: ['npm'],
  unsafe: NPM_UNSAFE,
  entries: [
    { path: 'token', class: 'ask', why: 'lists or makes registry tokens' },
    { path: 'config get', class: 'ask', why: 'can print a registry token' },
    {
      path: 'ls|list|ll|la|view|info|show|v|outdated|explain|why|root|prefix|bin|fund|search|ping|whoami|query|help, config list',
      class: 'approve',
      why: 'reads packages or the registry',
      flags: 'any',
      values: ['--depth', '--omit', '--include', '-w', '--workspace', '--registry', '--prefix'],
    },
    { path: 'audit', class: 'approve', why: 'checks dependencies against advisories', flags: 'any', values: ['--audit-level', '--omit'], maxPositionals: 0 },
    { path: 'audit signatures', class: 'approve', why: 'checks registry signatures', flags: 'any' },
    { path: 'pkg get', class: 'approve', why: 'reads package.json', flags: 'any' },
  ],
};

export const PNPM_YARN: ToolKb = {
  family: 'pnpm/yarn',
  programs: ['pnpm', 'yarn'],
  entries: [
    // `yarn NAME` runs the script NAME: only builtins are listed.
    { path: 'list|ls|why|outdated|info, licenses|config list, config get', class: 'approve', why: 'reads packages', flags: 'any', values: ['--depth', '--filter', '-F', '--pattern'] },
    { path: 'audit', class: 'approve', why: 'checks dependencies against advisories', flags: 'any', maxPositionals: 0, unsafe: { '--fix': 'changes the lock file' } },
  ],
};

export const PIP: ToolKb = {
  family: 'pip',
  programs: ['pip', 'pip3', 'pipx'],
  globals: { flags: ['-q', '--quiet', '-v', '--verbose', '--no-color', '--disable-pip-version-check', '--no-input'], values: ['--python'] },
  entries: [
    {
      path: 'show|list|freeze|check|help|debug|inspect, index versions, config list|get, cache list|dir|info',
      class: 'approve',
      why: 'reads installed packages',
      flags: 'any',
      values: ['--format', '--path', '--exclude', '--index-url', '-i'],
    },
  ],
};

export const UV: ToolKb = {
  family: 'uv',
  programs: ['uv'],
  globals: { flags: ['-q', '--quiet', '-v', '--verbose', '--no-progress', '--offline', '--frozen'], values: ['--directory', '--project', '--color'] },
  entries: [
    // `uv tree` and `uv run` may build source distributions: project code.
    { path: 'pip list|show|freeze|check|tree', class: 'approve', why: 'reads installed packages', flags: 'any', values: ['--python', '-p', '--format'] },
    { path: 'version|help, python|tool list, cache dir', class: 'approve', why: 'reads uv itself', flags: 'any' },
  ],
};

export const CARGO: ToolKb = {
  family: 'cargo',
  programs: ['cargo'],
  globals: { flags: ['-q', '--quiet', '-v', '--verbose', '--offline', '--frozen', '--locked'], values: ['--color', '--manifest-path'] },
  // `--config` takes settings (a `build.rustc-wrapper` is a program), `-Z` unstable behaviour.
  unsafe: { '--config': 'can name programs cargo runs', '-Z': 'turns on unstable behaviour' },
  entries: [
    // check, build, test, run, clippy, doc and every plugin (`cargo NAME` runs cargo-NAME) run build scripts or other code.
    {
      path: 'tree|metadata|search|pkgid|locate-project|verify-project|read-manifest|version|help|info|owner',
      class: 'approve',
      why: 'reads the manifest, lock file or registry',
      flags: 'any',
      values: ['-p', '--package', '-e', '--edges', '-i', '--invert', '--format', '--depth', '--prefix', '--target', '--features', '-F', '--format-version', '--limit'],
      unsafe: { '--add': 'changes owners', '--remove': 'changes owners' },
    },
    { path: '', class: 'approve', why: 'lists commands', flags: ['--list'], maxPositionals: 0 },
  ],
};

export const GO: ToolKb = {
  family: 'go',
  programs: ['go'],
  entries: [
    // `go list` without -export/-compiled/-test runs no build; `go vet`, build and test compile and run tools.
    { path: 'version|env|help|doc', class: 'approve', why: 'reads the toolchain or docs', flags: 'any', unsafe: { '-w': 'writes the Go environment file', '-u': 'unsets Go environment settings' } },
    { path: 'list', class: 'approve', why: 'lists packages', flags: ['-m', '-json', '-u', '-versions', '-deps', '-e', '-find'], values: ['-f'] },
    { path: 'mod graph|why|verify', class: 'approve', why: 'reads module requirements', flags: 'any' },
  ],
  longSingleDash: true,
};
