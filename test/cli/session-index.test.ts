// A session id (and an evidence id) is found from any folder through the machine-wide session
// index and the default project layout; a pointer is only a hint, checked before anything is read.
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { gatehouse, tempDir, type Ran } from '../support/cli.js';

let home: string;
let root: string;
let state: string;
let elsewhere: string;

/** Runs the CLI with this file's state home, from a folder that is no project. */
const from = (cwd: string, args: string[]): Ran => gatehouse(args, { cwd, env: { GATEHOUSE_HOME: home } });
const at = (): string[] => ['--worktree', root, '--state-dir', state];

function start(id: string, extra: string[] = at()): void {
  const r = from(elsewhere, ['session', 'start', '--agent', 'claude', '--id', id, '--allow', 'src/**', ...extra]);
  expect(r.status).toBe(0);
}

const outsideWrite = (): string => JSON.stringify({ session_id: 'x', hook_event_name: 'PreToolUse', cwd: root, tool_name: 'Write', tool_input: { file_path: join(root, 'README.md'), content: 'x' } });

beforeAll(() => {
  const base = tempDir('gh-index-');
  home = join(base, 'home');
  root = join(base, 'repo');
  state = join(base, 'custom-state');
  elsewhere = join(base, 'elsewhere');
  mkdirSync(join(root, 'src'), { recursive: true });
  mkdirSync(elsewhere);
  writeFileSync(join(root, 'README.md'), 'hello\n');
});

describe('finding a session by id from any folder', () => {
  it('shows, checks, gates and ends a session kept in a custom state folder', () => {
    start('idx-custom');
    const show = from(elsewhere, ['session', 'show', 'idx-custom', '--json']);
    expect(show.status).toBe(0);
    expect(JSON.parse(show.stdout).meta.worktree).toBe(root);
    const check = from(elsewhere, ['session', 'check', 'idx-custom']);
    expect(check.stdout).toContain('PASSED');
    expect(check.status).toBe(0);
    const gate = gatehouse(['hook-gate', 'check', '--session', 'idx-custom', '--event', 'PreToolUse'], { cwd: elsewhere, env: { GATEHOUSE_HOME: home }, input: outsideWrite() });
    expect(gate.status).toBe(2);
    expect(gate.stderr).toContain('README.md');
    const end = from(elsewhere, ['session', 'end', 'idx-custom']);
    expect(end.stderr).toBe('');
    expect(end.status).toBe(0);
    expect(existsSync(join(root, '.claude'))).toBe(false);
  });

  it('refuses every call from a manual hook-gate check whose policy no longer matches the start digest in the audit log', () => {
    start('idx-tampered');
    const file = join(state, 'sessions', 'idx-tampered', 'policy.json');
    const original = readFileSync(file, 'utf8');
    writeFileSync(file, JSON.stringify({ ...JSON.parse(original), allow: ['**'] }));
    const gate = (extra: string[]): Ran =>
      gatehouse(['hook-gate', 'check', '--session', 'idx-tampered', '--event', 'PreToolUse', ...extra], { cwd: elsewhere, env: { GATEHOUSE_HOME: home }, input: outsideWrite() });
    for (const extra of [[], ['--state-dir', state]]) {
      const r = gate(extra);
      expect(r.status).toBe(2);
      expect(r.stderr).toContain('so this session can no longer be checked and every action is refused');
    }
    expect(readFileSync(join(state, 'sessions', 'idx-tampered', 'gate.log'), 'utf8')).toContain('tamper');
    writeFileSync(file, original);
    expect(from(elsewhere, ['session', 'end', 'idx-tampered']).status).toBe(0);
  });

  it('refuses a manual hook-gate check of a session folder whose audit log has no start record', () => {
    start('idx-real');
    cpSync(join(state, 'sessions', 'idx-real'), join(state, 'sessions', 'idx-planted'), { recursive: true });
    const file = join(state, 'sessions', 'idx-planted', 'policy.json');
    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), session_id: 'idx-planted', allow: ['**'] }));
    const r = gatehouse(['hook-gate', 'check', '--session', 'idx-planted', '--event', 'PreToolUse', '--state-dir', state], { cwd: elsewhere, env: { GATEHOUSE_HOME: home }, input: outsideWrite() });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('has no start record for session idx-planted');
    rmSync(join(state, 'sessions', 'idx-planted'), { recursive: true });
    expect(from(elsewhere, ['session', 'end', 'idx-real']).status).toBe(0);
  });

  it('shows, exports and verifies evidence by id from any folder', () => {
    const run = from(elsewhere, ['run', '--agent', 'claude', ...at(), '--allow', 'src/**', '--', process.execPath, '-e', `require('fs').writeFileSync(${JSON.stringify(join(root, 'out.txt'))},'x')`]);
    expect(run.status).toBe(1);
    rmSync(join(root, 'out.txt'));
    const id = (JSON.parse(from(elsewhere, ['evidence', 'list', '--json', ...at()]).stdout) as { id: string }[])[0]!.id;
    const pub = join(elsewhere, 'pub.pem');
    writeFileSync(pub, JSON.parse(from(elsewhere, ['keys', 'show', '--json', ...at()]).stdout).public_key_pem);
    expect(from(elsewhere, ['evidence', 'show', id]).status).toBe(0);
    const exported = from(elsewhere, ['evidence', 'export', id]);
    expect(exported.stderr).toBe('');
    expect(exported.status).toBe(0);
    expect(existsSync(join(elsewhere, `${id}.evidence.json`))).toBe(true);
    const verified = from(elsewhere, ['evidence', 'verify', id, '--key', pub]);
    expect(verified.stdout).toContain(`verified: ${id}`);
    const unknown = from(elsewhere, ['evidence', 'export', 'ev-20200101T000000Z-0123456789abcdef']);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain('no evidence bundle ev-20200101T000000Z-0123456789abcdef on this machine');
    expect(unknown.stderr).toContain('gatehouse evidence list');
  });

  it('says what to do when the id is unknown everywhere', () => {
    const r = from(elsewhere, ['session', 'end', 'idx-nowhere']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('no session idx-nowhere on this machine');
    expect(r.stderr).toContain('gatehouse session list');
    expect(r.stderr).toContain('--state-dir DIR');
    // An explicit project is taken at its word: no search elsewhere.
    start('idx-explicit');
    const other = tempDir('gh-index-other-');
    const pinned = from(elsewhere, ['session', 'show', 'idx-explicit', '--worktree', other]);
    expect(pinned.status).toBe(1);
    expect(pinned.stderr).toContain('no session idx-explicit in');
  });

  it('still finds sessions without the index: the default layout by scan, a custom state folder by --state-dir', () => {
    const r = from(elsewhere, ['session', 'start', '--agent', 'claude', '--id', 'idx-default', '--worktree', root]);
    expect(r.status).toBe(0);
    start('idx-lost');
    rmSync(join(home, 'index'), { recursive: true, force: true });
    expect(from(elsewhere, ['session', 'show', 'idx-default']).status).toBe(0);
    expect(from(root, ['session', 'end', 'idx-default']).status).toBe(0);
    const lost = from(elsewhere, ['session', 'show', 'idx-lost']);
    expect(lost.status).toBe(1);
    expect(lost.stderr).toContain('--state-dir DIR');
    expect(from(elsewhere, ['session', 'end', 'idx-lost', '--state-dir', state]).status).toBe(0);
  });
});

describe('the index is a pointer, never trusted', () => {
  /** Plants a pointer for `id` to `stateDir`, as code running as the user could. */
  function plant(id: string, stateDir: string, name = 'aaaaaaaaaaaaaaaa'): void {
    mkdirSync(join(home, 'index', 'sessions', id), { recursive: true });
    writeFileSync(join(home, 'index', 'sessions', id, `${name}.json`), JSON.stringify({ v: 1, id, state_dir: stateDir, worktree: root, started_at: 'x' }));
  }
  function forgeCopy(id: string, selfNamed: boolean): string {
    const fake = join(tempDir('gh-index-fake-'), 'state');
    cpSync(join(state, 'sessions', id), join(fake, 'sessions', id), { recursive: true });
    if (selfNamed) {
      const file = join(fake, 'sessions', id, 'policy.json');
      writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), state_dir: fake, allow: ['**'] }));
    }
    return fake;
  }

  it('ignores a pointer to a copied session whose policy names another state folder', () => {
    start('idx-copied');
    plant('idx-copied', forgeCopy('idx-copied', false));
    const show = from(elsewhere, ['session', 'show', 'idx-copied', '--json']);
    expect(show.status).toBe(0);
    expect(JSON.parse(show.stdout).dir).toBe(join(state, 'sessions', 'idx-copied'));
    expect(from(elsewhere, ['session', 'end', 'idx-copied']).status).toBe(0);
  });

  it('refuses to choose between two projects that reused the same --id', () => {
    start('idx-twice');
    const root2 = join(tempDir('gh-index-two-'), 'repo');
    mkdirSync(root2, { recursive: true });
    expect(from(elsewhere, ['session', 'start', '--agent', 'claude', '--id', 'idx-twice', '--worktree', root2]).status).toBe(0);
    const r = from(elsewhere, ['session', 'check', 'idx-twice']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('was used in 2 projects');
    expect(r.stderr).toContain(root2);
    expect(r.stderr).toContain('--worktree DIR');
    expect(from(elsewhere, ['session', 'end', 'idx-twice', ...at()]).status).toBe(0);
    expect(from(elsewhere, ['session', 'end', 'idx-twice', '--worktree', root2]).status).toBe(0);
  });

  it('does not act on a planted folder whose audit log lacks the start digests', () => {
    start('idx-planted');
    const settings = join(root, '.claude', 'settings.local.json');
    const fake = forgeCopy('idx-planted', true);
    rmSync(join(state, 'sessions', 'idx-planted'), { recursive: true });
    plant('idx-planted', fake);
    const rendered = readFileSync(settings, 'utf8');
    // Read as a session of an older Gatehouse, the forged render record would be trusted as it is.
    for (const cmd of ['check', 'end', 'show']) {
      const r = from(elsewhere, ['session', cmd, 'idx-planted']);
      expect(r.status).toBe(1);
      expect(r.stderr).toContain('cannot be trusted from here');
      expect(r.stderr).toContain('no start record');
    }
    expect(readFileSync(settings, 'utf8')).toBe(rendered);
  });
});
