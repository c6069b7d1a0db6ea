// The hook runs through a V8 code cache beside its scripts (dist/hook/code-cache/): its verdicts are
// the same with the cache present, absent, stale, corrupt, or replaced by a FIFO or a link. The
// build splits the hook into scripts that load only when a call needs them; an allowed write loads
// the first alone, and a module another script imports is the one instance the first script holds.
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { startSession } from '../../src/gate/session-lifecycle.js';
import { HOOK, tempDir, type Ran, testEnv } from '../support/cli.js';

let base: string;
/** Where the bundle copies go: apart from the worktree, since the install folder is protected. */
let installs: string;
let root: string;
let state: string;
let calls = 0;

const SCRIPTS = ['hook-body.cjs', 'hook-shell.cjs', 'hook-seal.cjs', 'hook-turn.cjs'];

/** A copy of the built hook folder, so each test has a cache folder of its own. */
function copyBundle(name: string, edit?: (script: string, text: string) => string): string {
  const dir = join(installs, name, 'hook');
  cpSync(join(HOOK, '..'), dir, { recursive: true, filter: (src) => !src.includes('code-cache') });
  if (edit) for (const s of SCRIPTS) writeFileSync(join(dir, s), edit(s, readFileSync(join(dir, s), 'utf8')));
  return dir;
}

async function start(bin: string): Promise<string> {
  const r = await startSession({ agent: 'claude', worktree: root, allow: ['src/**'], require: [], stateDir: state, env: testEnv(), nodePath: process.execPath, hookBundle: join(bin, 'hook.js') });
  if (!r.ok) throw new Error(r.reason);
  return r.value.policy.session_id;
}

/** Runs the copied hook for one event; every call differs a little, as an agent's do. */
function call(bin: string, id: string, event: string, payload: Record<string, unknown>): Ran {
  calls++;
  const r = spawnSync(process.execPath, [join(bin, 'hook.js'), 'check', '--session', id, '--event', event, '--state-dir', state], {
    cwd: root,
    input: JSON.stringify({ hook_event_name: event, cwd: root, ...payload }),
    encoding: 'utf8',
    timeout: 30_000,
  });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const write = (bin: string, id: string, file: string): Ran => call(bin, id, 'PreToolUse', { tool_name: 'Write', tool_input: { file_path: join(root, file), content: `x${calls}` } });

/** The verdicts of one allowed and one refused write, in the form the agent reads them. */
function verdicts(bin: string, id: string): unknown {
  const allowed = write(bin, id, 'src/a.ts');
  const refused = write(bin, id, 'package.json');
  return { allowed, refused: { status: refused.status, stdout: refused.stdout, named: refused.stderr.includes('package.json is outside') } };
}

const EXPECTED = { allowed: { status: 0, stdout: '', stderr: '' }, refused: { status: 2, stdout: '', named: true } };

function cacheFiles(bin: string): string[] {
  return readdirSync(join(bin, 'code-cache'))
    .filter((f) => f.endsWith('.v8cache'))
    .map((f) => join(bin, 'code-cache', f));
}

/** Warms a bundle's caches (an allowed and a refused write) and returns them. */
function warmed(bin: string, id: string): string[] {
  expect(verdicts(bin, id)).toEqual(EXPECTED);
  const files = cacheFiles(bin);
  // The first script, and the one that seals a refusal.
  expect(files).toHaveLength(2);
  return files;
}

beforeEach(() => {
  base = tempDir();
  installs = tempDir();
  root = join(base, 'repo');
  state = join(base, 'state');
  mkdirSync(join(root, 'src'), { recursive: true });
});

describe('hook code cache', () => {
  it('writes a cache beside the scripts on the first calls and then uses them as they are', async () => {
    const bin = copyBundle('bin');
    const id = await start(bin);
    const files = warmed(bin, id);
    for (const f of files) expect(readFileSync(f).subarray(0, 6).toString('latin1')).toBe('GHCC1 ');
    const before = files.map((f) => statSync(f));
    // The caches cover both paths now: V8 accepted them, so nothing is written again.
    expect(verdicts(bin, id)).toEqual(EXPECTED);
    expect(files.map((f) => statSync(f)).map((s) => [s.ino, s.mtimeMs])).toEqual(before.map((s) => [s.ino, s.mtimeMs]));
  });

  it('answers an allowed write from the first script alone', async () => {
    const bin = copyBundle('bin');
    const id = await start(bin);
    for (const s of SCRIPTS.slice(1)) rmSync(join(bin, s));
    expect(write(bin, id, 'src/a.ts')).toEqual(EXPECTED.allowed);
    expect(cacheFiles(bin)).toHaveLength(1);
    // A refusal needs the sealing script; without it the call is not let through.
    const refused = write(bin, id, 'package.json');
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain('hook-seal.cjs');
  });

  it('loads the shell script for a Bash call and keeps a Stop’s caches apart from a PreToolUse’s', async () => {
    const bin = copyBundle('bin');
    const id = await start(bin);
    const bash = call(bin, id, 'PreToolUse', { tool_name: 'Bash', tool_input: { command: 'ls src' } });
    expect(bash.status, bash.stderr).toBe(0);
    const afterBash = cacheFiles(bin);
    expect(afterBash).toHaveLength(2);
    const stop = call(bin, id, 'Stop', { stop_hook_active: false });
    expect(stop.status, stop.stderr).toBe(0);
    // The Stop's own caches of the first script and of the turn's: none of the PreToolUse's is rewritten.
    const afterStop = cacheFiles(bin);
    expect(afterStop.filter((f) => !afterBash.includes(f)).length).toBeGreaterThanOrEqual(2);
  });

  it('answers the same without a cache folder it can write', async () => {
    const bin = copyBundle('bin');
    const id = await start(bin);
    writeFileSync(join(bin, 'code-cache'), 'not a folder');
    expect(verdicts(bin, id)).toEqual(EXPECTED);
    expect(lstatSync(join(bin, 'code-cache')).isFile()).toBe(true);
  });

  it('rejects a cache made for another build of the scripts and writes its own', async () => {
    const bin = copyBundle('bin');
    const other = copyBundle('other', (_s, text) => `${text}\n// another build\n`);
    const id = await start(bin);
    const files = warmed(bin, id);
    const stale = warmed(other, id);
    // Planted under this build's names: V8 sees the sources differ and rejects them.
    const planted = stale.map((f) => readFileSync(f));
    files.forEach((f, i) => writeFileSync(f, planted[i]!));
    expect(verdicts(bin, id)).toEqual(EXPECTED);
    files.forEach((f, i) => expect(readFileSync(f).equals(planted[i]!)).toBe(false));
  });

  it('names the cache by the build digest and the script file: a same-length edit after the build runs the edited code', async () => {
    const bin = copyBundle('bin');
    for (const s of SCRIPTS) expect(readFileSync(join(bin, s), 'latin1')).toMatch(/^\/\/gh-sha256:[0-9a-f]{64}\n\(function \(exports, require, module, __filename, __dirname\) \{/);
    const id = await start(bin);
    const files = warmed(bin, id);
    // Same length, so V8 alone would take the old cache for it; the digest on its first line stays.
    const body = join(bin, 'hook-body.cjs');
    const text = readFileSync(body, 'latin1');
    expect(text).toContain('is outside this task');
    writeFileSync(body, text.replace('is outside this task', 'IS OUTSIDE THIS TASK'), 'latin1');
    const refused = write(bin, id, 'package.json');
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain('package.json IS OUTSIDE THIS TASK');
    expect(cacheFiles(bin).filter((f) => !files.includes(f))).toHaveLength(1);
  });

  it('is built as ASCII, so that the loader reads each script as a one-byte string', () => {
    for (const s of SCRIPTS)
      expect(
        readFileSync(join(HOOK, '..', s)).findIndex((b) => b > 0x7f),
        s,
      ).toBe(-1);
  });

  it('reads a script edited to hold non-ASCII text as UTF-8, not as latin1', async () => {
    const bin = copyBundle('bin', (_s, text) => text.replace('is outside this task', 'is outside this t\u00e4sk \u27e8\u{1f512}\u27e9'));
    const id = await start(bin);
    const refused = write(bin, id, 'package.json');
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain('package.json is outside this t\u00e4sk \u27e8\u{1f512}\u27e9');
    // And again through the cache that call wrote.
    expect(write(bin, id, 'package.json').stderr).toContain('t\u00e4sk \u27e8\u{1f512}\u27e9');
  });

  it.each([
    ['random bytes', () => randomBytes(4096)],
    ['our header over random bytes', () => Buffer.concat([Buffer.from('GHCC1 PreToolUse:0,PreToolUse:2\n'), randomBytes(200_000)])],
    ['an empty file', () => Buffer.alloc(0)],
  ])('ignores a corrupt cache (%s) and answers the same', async (_name, bytes) => {
    const bin = copyBundle('bin');
    const id = await start(bin);
    const files = warmed(bin, id);
    for (const f of files) writeFileSync(f, bytes());
    expect(verdicts(bin, id)).toEqual(EXPECTED);
    for (const f of files) expect(readFileSync(f).subarray(0, 6).toString('latin1')).toBe('GHCC1 ');
  });

  it('ignores a truncated cache and answers the same', async () => {
    const bin = copyBundle('bin');
    const id = await start(bin);
    const files = warmed(bin, id);
    const whole = files.map((f) => readFileSync(f));
    files.forEach((f, i) => writeFileSync(f, whole[i]!.subarray(0, whole[i]!.length >> 1)));
    expect(verdicts(bin, id)).toEqual(EXPECTED);
    files.forEach((f, i) => expect(readFileSync(f).length).toBeGreaterThan(whole[i]!.length >> 1));
  });

  it('does not hang on a FIFO planted at the cache path', async () => {
    const bin = copyBundle('bin');
    const id = await start(bin);
    const files = warmed(bin, id);
    for (const f of files) {
      rmSync(f);
      expect(spawnSync('mkfifo', [f]).status).toBe(0);
    }
    expect(verdicts(bin, id)).toEqual(EXPECTED);
    for (const f of files) expect(lstatSync(f).isFile()).toBe(true);
  });

  it('does not follow a link planted at the cache path, nor write through it', async () => {
    const bin = copyBundle('bin');
    const id = await start(bin);
    const files = warmed(bin, id);
    const elsewhere = join(base, 'elsewhere.bin');
    writeFileSync(elsewhere, 'not to be touched');
    for (const f of files) {
      rmSync(f);
      symlinkSync(elsewhere, f);
    }
    expect(verdicts(bin, id)).toEqual(EXPECTED);
    for (const f of files) expect(lstatSync(f).isFile()).toBe(true);
    expect(readFileSync(elsewhere, 'utf8')).toBe('not to be touched');
  });

  it('reads and writes nothing through a cache folder that is a link', async () => {
    const bin = copyBundle('bin');
    const id = await start(bin);
    warmed(bin, id);
    const elsewhere = join(base, 'elsewhere');
    cpSync(join(bin, 'code-cache'), elsewhere, { recursive: true });
    const planted = readdirSync(elsewhere);
    rmSync(join(bin, 'code-cache'), { recursive: true });
    symlinkSync(elsewhere, join(bin, 'code-cache'));
    for (const p of planted) writeFileSync(join(elsewhere, p), randomBytes(64));
    expect(verdicts(bin, id)).toEqual(EXPECTED);
    expect(readdirSync(elsewhere)).toEqual(planted);
  });
});

describe('hook scripts importing from each other', () => {
  /** The real loader beside hand-written scripts in the build's form. */
  function scripts(files: Record<string, string>): string {
    const dir = join(installs, 'fixture');
    mkdirSync(dir, { recursive: true });
    copyFileSync(HOOK, join(dir, 'hook.js'));
    writeFileSync(join(dir, 'package.json'), '{ "type": "commonjs" }\n');
    for (const [name, body] of Object.entries(files)) writeFileSync(join(dir, name), `(function (exports, require, module, __filename, __dirname) {${body}\n})`);
    return dir;
  }
  const run = (dir: string): Ran => {
    const r = spawnSync(process.execPath, [join(dir, 'hook.js'), 'check', '--event', 'PreToolUse'], { encoding: 'utf8', timeout: 30_000 });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  };

  it('gives a later script the first script’s own module instance, also in a cycle, and loads each script once', () => {
    const dir = scripts({
      'hook-body.cjs': [
        'const counter = { n: 0 };',
        'exports.load = (id) => { if (id === "counter") return counter; throw new Error("no " + id); };',
        'globalThis.loads = (globalThis.loads ?? 0) + 1;',
        'const two = require("gh-script:hook-two.cjs#two");',
        'const again = require("gh-script:hook-two.cjs#two");',
        'counter.n = 41; counter.n++;',
        'process.stdout.write(JSON.stringify({ same: two.counter === counter, seen: two.read(), once: two === again, loads: globalThis.loads }));',
      ].join('\n'),
      'hook-two.cjs': ['const c = require("gh-script:hook-body.cjs#counter");', 'const two = { counter: c, read: () => c.n };', 'exports.load = (id) => two;'].join('\n'),
    });
    const r = run(dir);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ same: true, seen: 42, once: true, loads: 1 });
  });

  it.each([['gh-script:../hook-body.cjs#x'], ['gh-script:/etc/passwd#x'], ['gh-script:hook-two.cjs']])('refuses the specifier %s', (spec) => {
    const dir = scripts({
      'hook-body.cjs': `try { require(${JSON.stringify(spec)}); process.stdout.write("loaded"); } catch (e) { process.stdout.write("refused: " + e.message); }`,
      'hook-two.cjs': 'exports.load = () => ({});',
    });
    expect(run(dir).stdout).toMatch(/^refused: gatehouse hook: /);
  });

  it('fails closed when the first script cannot be loaded and --fail-closed was rendered', () => {
    const dir = scripts({});
    const r = spawnSync(process.execPath, [join(dir, 'hook.js'), 'check', '--event', 'PreToolUse', '--fail-closed'], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('cannot load');
  });
});
