// The hook runs through a V8 code cache beside its bundle (dist/hook/code-cache/): its verdicts are
// the same with the cache present, absent, stale, corrupt, or replaced by a FIFO or a link.
import { spawnSync } from 'node:child_process';
import { cpSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { startSession } from '../../src/gate/session-lifecycle.js';
import { HOOK, tempDir, type Ran } from '../support/cli.js';

let base: string;
/** Where the bundle copies go: apart from the worktree, since the install folder is protected. */
let installs: string;
let root: string;
let state: string;
let calls = 0;

/** A copy of the built hook folder, so each test has a cache folder of its own. */
function copyBundle(name: string, edit?: (body: string) => string): string {
  const dir = join(installs, name, 'hook');
  cpSync(join(HOOK, '..'), dir, { recursive: true, filter: (src) => !src.includes('code-cache') });
  if (edit) writeFileSync(join(dir, 'hook-body.cjs'), edit(readFileSync(join(dir, 'hook-body.cjs'), 'utf8')));
  return dir;
}

async function start(bin: string): Promise<string> {
  const r = await startSession({ agent: 'claude', worktree: root, allow: ['src/**'], require: [], stateDir: state, env: {}, nodePath: process.execPath, hookBundle: join(bin, 'hook.js') });
  if (!r.ok) throw new Error(r.reason);
  return r.value.policy.session_id;
}

/** Runs the copied hook for a Write of `file`; every call differs a little, as an agent's do. */
function write(bin: string, id: string, file: string): Ran {
  calls++;
  const payload = { hook_event_name: 'PreToolUse', cwd: root, tool_name: 'Write', tool_input: { file_path: join(root, file), content: `x${calls}` } };
  const r = spawnSync(process.execPath, [join(bin, 'hook.js'), 'check', '--session', id, '--event', 'PreToolUse', '--state-dir', state], {
    cwd: root,
    input: JSON.stringify(payload),
    encoding: 'utf8',
    timeout: 30_000,
  });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

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

/** Warms a bundle's cache and returns its one cache file. */
function warmed(bin: string, id: string): string {
  expect(verdicts(bin, id)).toEqual(EXPECTED);
  const files = cacheFiles(bin);
  expect(files).toHaveLength(1);
  return files[0]!;
}

beforeEach(() => {
  base = tempDir();
  installs = tempDir();
  root = join(base, 'repo');
  state = join(base, 'state');
  mkdirSync(join(root, 'src'), { recursive: true });
});

describe('hook code cache', () => {
  it('writes a cache beside the bundle on the first calls and then uses it as it is', async () => {
    const bin = copyBundle('bin');
    const id = await start(bin);
    const file = warmed(bin, id);
    expect(readFileSync(file).subarray(0, 6).toString('latin1')).toBe('GHCC1 ');
    const before = statSync(file);
    // The cache covers both paths now: V8 accepted it, so nothing is written again.
    expect(verdicts(bin, id)).toEqual(EXPECTED);
    const after = statSync(file);
    expect([after.ino, after.mtimeMs]).toEqual([before.ino, before.mtimeMs]);
  });

  it('answers the same without a cache folder it can write', async () => {
    const bin = copyBundle('bin');
    const id = await start(bin);
    writeFileSync(join(bin, 'code-cache'), 'not a folder');
    expect(verdicts(bin, id)).toEqual(EXPECTED);
    expect(lstatSync(join(bin, 'code-cache')).isFile()).toBe(true);
  });

  it('rejects a cache made for another build of the bundle and writes its own', async () => {
    const bin = copyBundle('bin');
    const other = copyBundle('other', (body) => `${body}\n// another build\n`);
    const id = await start(bin);
    const file = warmed(bin, id);
    const stale = warmed(other, id);
    // Planted under this build's name: V8 sees the source differs and rejects it.
    const planted = readFileSync(stale);
    writeFileSync(file, planted);
    expect(verdicts(bin, id)).toEqual(EXPECTED);
    expect(readFileSync(file).equals(planted)).toBe(false);
  });

  it('names the cache by the build digest and the bundle file: a same-length edit after the build runs the edited code', async () => {
    const bin = copyBundle('bin');
    expect(readFileSync(join(bin, 'hook-body.cjs.sha256'), 'utf8')).toMatch(/^[0-9a-f]{64}\n$/);
    const id = await start(bin);
    const file = warmed(bin, id);
    // Same length, so V8 alone would take the old cache for it; the stale digest file stays.
    const body = join(bin, 'hook-body.cjs');
    const text = readFileSync(body, 'utf8');
    expect(text).toContain('is outside this task');
    writeFileSync(body, text.replace('is outside this task', 'IS OUTSIDE THIS TASK'));
    const refused = write(bin, id, 'package.json');
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain('package.json IS OUTSIDE THIS TASK');
    expect(cacheFiles(bin).filter((f) => f !== file)).toHaveLength(1);
  });

  it('is built as ASCII, so that the loader reads it as a one-byte string', () => {
    const body = readFileSync(join(HOOK, '..', 'hook-body.cjs'));
    expect(body.findIndex((b) => b > 0x7f)).toBe(-1);
  });

  it('reads a bundle edited to hold non-ASCII text as UTF-8, not as latin1', async () => {
    const bin = copyBundle('bin', (body) => body.replace('is outside this task', 'is outside this t\u00e4sk \u27e8\u{1f512}\u27e9'));
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
    const file = warmed(bin, id);
    writeFileSync(file, bytes());
    expect(verdicts(bin, id)).toEqual(EXPECTED);
    expect(readFileSync(file).subarray(0, 6).toString('latin1')).toBe('GHCC1 ');
  });

  it('ignores a truncated cache and answers the same', async () => {
    const bin = copyBundle('bin');
    const id = await start(bin);
    const file = warmed(bin, id);
    const whole = readFileSync(file);
    writeFileSync(file, whole.subarray(0, whole.length >> 1));
    expect(verdicts(bin, id)).toEqual(EXPECTED);
    expect(readFileSync(file).length).toBeGreaterThan(whole.length >> 1);
  });

  it('does not hang on a FIFO planted at the cache path', async () => {
    const bin = copyBundle('bin');
    const id = await start(bin);
    const file = warmed(bin, id);
    rmSync(file);
    expect(spawnSync('mkfifo', [file]).status).toBe(0);
    expect(verdicts(bin, id)).toEqual(EXPECTED);
    expect(lstatSync(file).isFile()).toBe(true);
  });

  it('does not follow a link planted at the cache path, nor write through it', async () => {
    const bin = copyBundle('bin');
    const id = await start(bin);
    const file = warmed(bin, id);
    const elsewhere = join(base, 'elsewhere.bin');
    writeFileSync(elsewhere, 'not to be touched');
    rmSync(file);
    symlinkSync(elsewhere, file);
    expect(verdicts(bin, id)).toEqual(EXPECTED);
    expect(lstatSync(file).isFile()).toBe(true);
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
    writeFileSync(join(elsewhere, planted[0]!), randomBytes(64));
    expect(verdicts(bin, id)).toEqual(EXPECTED);
    expect(readdirSync(elsewhere)).toEqual(planted);
  });
});
