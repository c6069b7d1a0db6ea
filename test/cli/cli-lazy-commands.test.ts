// The command line loads only the command it runs: an everyday command (`session list`, `approve
// --list`, `audit verify`…) loads no config parser, no team-store client, no gateway and no terminal
// UI, which together cost every call about a third of a second. The overall help, `help <command>`
// and a mistyped command still see every command.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, gatehouse, tempDir } from '../support/cli.js';

/** Packages that only some commands need; `yaml`, `smol-toml` and `zod` are the config's parser and schema. */
const HEAVY = ['zod', 'yaml', 'smol-toml', 'pg', 'pg-copy-streams', 'ws', '@xterm/headless', '@lydell/node-pty', 'ink', 'react'];

let dir: string;
let preload: string;

beforeAll(() => {
  dir = tempDir('gh-cli-lazy-');
  // An ES module loader hook, registered before the CLI starts, writes down every module it resolves.
  writeFileSync(
    join(dir, 'hooks.mjs'),
    `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  appendFileSync(process.env.GH_TEST_MODULES, r.url + '\\n');
  return r;
}
`,
  );
  preload = join(dir, 'preload.mjs');
  writeFileSync(preload, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)});\n`);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the CLI; returns its exit status and the packages (by name) it loaded. */
function run(args: string[], name: string): { status: number | null; stdout: string; packages: Set<string> } {
  const out = join(dir, `${name}.modules`);
  writeFileSync(out, '');
  const state = join(dir, `state-${name}`);
  mkdirSync(state, { recursive: true });
  const r = spawnSync(process.execPath, ['--import', preload, CLI, ...args.map((a) => a.replace('STATE', state))], {
    cwd: dir,
    env: { ...process.env, GH_TEST_MODULES: out, GATEHOUSE_HOME: join(dir, 'home') },
    encoding: 'utf8',
    timeout: 60_000,
  });
  const packages = new Set(
    readFileSync(out, 'utf8')
      .split('\n')
      .flatMap((url) => {
        const m = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
        return m?.[1] === undefined ? [] : [m[1]];
      }),
  );
  return { status: r.status, stdout: r.stdout, packages };
}

describe('an everyday command loads only what it runs', () => {
  for (const [args, status] of [
    [['--version'], 0],
    [['session', 'list', '--state-dir', 'STATE'], 0],
    [['approve', '--list', '--state-dir', 'STATE'], 0],
    [['audit', 'verify', '--state-dir', 'STATE'], 0],
    [['evidence', 'list', '--state-dir', 'STATE'], 0],
    [['keys', 'show', '--state-dir', 'STATE'], 0],
    [['where', '--state-dir', 'STATE'], 0],
    [['agents'], 0],
    [['explain', 'ls'], 0],
    [['session', 'show', 'no-such-session', '--state-dir', 'STATE'], 1],
  ] as const) {
    it(`gatehouse ${args.join(' ').replace('STATE', 'S')}`, () => {
      const r = run([...args], args.join('-').replace(/[^a-z-]/g, ''));
      expect(r.status).toBe(status);
      // The hook saw the command line's own framework: a run that recorded nothing cannot pass.
      expect(r.packages).toContain('commander');
      expect(HEAVY.filter((p) => r.packages.has(p))).toEqual([]);
    });
  }

  it('loads the config parser when the command reads the config (session start)', () => {
    const project = join(dir, 'project');
    mkdirSync(project);
    spawnSync('git', ['init', '-q'], { cwd: project });
    const r = run(['session', 'start', '--agent', 'claude', '--worktree', project, '--state-dir', 'STATE', '--transport', 'command'], 'start');
    expect(r.status).toBe(0);
    expect(r.packages).toContain('yaml');
    expect(r.packages).toContain('zod');
  });
});

describe('every command is still there where all are listed', () => {
  it('lists every command in the overall help, in order', () => {
    const r = gatehouse(['--help']);
    expect(r.status).toBe(0);
    const listed = r.stdout
      .split('Commands:')[1]!
      .split('\n')
      .flatMap((line) => /^ {2}([a-z-]+)/.exec(line)?.[1] ?? []);
    expect(listed).toEqual(['session', 'run', 'audit', 'evidence', 'keys', 'approve', 'serve', 'tui', 'where', 'agents', 'doctor', 'hook-gate', 'demo', 'explain', 'help']);
  });

  it('prints a command’s help through `help <command>` and `<command> --help`', () => {
    for (const args of [
      ['help', 'session'],
      ['session', '--help'],
      ['help', 'approve'],
    ]) {
      const r = gatehouse(args);
      expect(r.status, args.join(' ')).toBe(0);
      expect(r.stdout).toContain(`Usage: gatehouse ${args[0] === 'help' ? args[1] : args[0]}`);
    }
  });

  it('suggests the command a typo meant, and exits 2', () => {
    const r = gatehouse(['sesion', 'list']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("unknown command 'sesion'");
    expect(r.stderr).toContain('(Did you mean session?)');
  });

  it('prints the version alone, without any command', () => {
    const r = gatehouse(['--version']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^\d+\.\d+\.\d+/);
  });
});
