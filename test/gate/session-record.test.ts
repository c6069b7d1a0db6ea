import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { sessionRecord, type RecordLimits } from '../../src/gate/session-record.js';
import { SessionDetail } from '../../src/protocol/sessions.js';
import { ApprovalQueue } from '../../src/runtime/approvals/index.js';
import { SessionStore } from '../../src/runtime/session-store.js';
import { worktreeDiff } from '../../src/runtime/worktree-diff.js';
import { gatehouse, tempDir } from '../support/cli.js';
import { tryWrite } from '../support/rendered-hook.js';

// A finished session's record as the dashboard shows it: its timeline from the audit log, its
// verdict, and its worktree's changes since the baseline, with the agent's files read as hostile.

const LIMITS: RecordLimits = { timeline: 50, reasonChars: 1500, maxFileBytes: 64 * 1024, maxEdits: 1000, maxChars: 32 * 1024, compareMs: 10_000 };

let base: string;
let root: string;
let state: string;
let id: string;
let marker: string;
let outsideSecret: string;

const git = (...args: string[]) =>
  execFileSync('git', args, {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' },
  });

beforeAll(() => {
  base = tempDir();
  root = join(base, 'repo');
  state = join(base, 'state');
  marker = join(base, 'git-ran-a-program');
  outsideSecret = join(base, 'outside', 'secret.txt');
  mkdirSync(join(base, 'outside'));
  writeFileSync(outsideSecret, 'TOP-SECRET-OUTSIDE\n');
  mkdirSync(join(root, 'src'), { recursive: true });
  git('init', '-q');
  writeFileSync(join(root, 'src', 'a.ts'), 'one\ntwo\nthree\n');
  writeFileSync(join(root, 'README.md'), '# app\nold line\n');
  writeFileSync(join(root, 'gone.txt'), 'bye\n');
  writeFileSync(join(root, 'dirty.txt'), 'committed\n');
  git('add', '.');
  git('commit', '-q', '-m', 'init');
  writeFileSync(join(root, 'dirty.txt'), 'uncommitted at start\n');
  const started = gatehouse(['session', 'start', '--agent', 'claude', '--worktree', root, '--state-dir', state, '--allow', 'src/**']);
  expect(started.status, started.stderr).toBe(0);
  id = started.stdout.trim();
  // The agent: one refused write, then work by shell, and a repository config that would run a program.
  const refused = tryWrite(root, 'package.json');
  expect(refused.status).toBe(2);
  writeFileSync(join(root, 'src', 'a.ts'), 'one\nTWO\nthree\n');
  writeFileSync(join(root, 'README.md'), '# app\nnew line\n');
  writeFileSync(join(root, 'new.txt'), 'fresh\n');
  writeFileSync(join(root, 'dirty.txt'), 'changed again\n');
  writeFileSync(join(root, 'blob.bin'), Buffer.from([0x89, 0x50, 0x00, 0x01, 0xff]));
  unlinkSync(join(root, 'gone.txt'));
  symlinkSync(outsideSecret, join(root, 'leak.txt'));
  const evil = join(base, 'evil.sh');
  writeFileSync(evil, `#!/bin/sh\ntouch ${marker}\n`);
  chmodSync(evil, 0o755);
  git('config', 'core.fsmonitor', evil);
  git('config', 'diff.evil.textconv', evil);
  writeFileSync(join(root, '.gitattributes'), '* diff=evil\n');
  // A person answers an approval of this session.
  const queue = new ApprovalQueue(state);
  const asked = queue.enqueue({ session_id: id, agent: 'claude', tool: 'Bash', summary: 'Bash: npm publish', ttlSeconds: 60 });
  expect(queue.resolve(asked.id, { decision: 'reject', reason: 'not today', principal: { id: 'os-user:ana', auth: 'local-shell' } }).ok).toBe(true);
  expect(gatehouse(['session', 'end', id, '--worktree', root, '--state-dir', state]).status).toBe(0);
  expect(gatehouse(['session', 'check', id, '--worktree', root, '--state-dir', state]).status).toBe(1);
});

async function record(): Promise<SessionDetail> {
  const store = SessionStore.open(state, id);
  if (!store.ok) throw new Error(store.reason);
  return SessionDetail.parse(await sessionRecord(store.value, null, LIMITS));
}

describe('sessionRecord', () => {
  it('tells the timeline: the refused write with its reason, the approval with who decided, the failed end check', async () => {
    const r = await record();
    expect(r.timeline.map((e) => e.type)).toEqual(['gate_decision', 'human_approval_decision', 'completion_verdict']);
    const [write, approval, end] = r.timeline;
    expect(write).toMatchObject({ refused: true, by: null });
    expect(write!.what).toContain('refused Write package.json');
    expect(write!.reason).toContain('package.json is outside');
    expect(approval).toMatchObject({ by: 'os-user:ana', refused: true, reason: 'not today' });
    expect(end!.what).toContain('end-of-session check failed (scope_check)');
    expect(r.timeline_total).toBe(3);
    expect(r.audit).toEqual({ verified: true, problem: null });
  });

  it('gives the signed verdict and the evidence bundle id', async () => {
    const r = await record();
    expect(r.verdict).toMatchObject({ word: 'failed', source: 'audit', meta_says: null });
    expect(r.verdict!.summary).toContain('README.md');
    expect(r.verdict!.evidence_id).toMatch(/\S/);
    expect(r.session).toMatchObject({ id, agent: 'claude', status: 'ended', verdict: 'failed', problem: null });
  });

  it('lists the changes as the end-of-session check does, each shown as far as its old bytes are known', async () => {
    const r = await record();
    const by = new Map(r.diff.files.map((f) => [f.path, f]));
    expect(r.diff.problem).toBeNull();
    expect([...by.keys()].sort()).toEqual(['.git/config', '.gitattributes', 'README.md', 'blob.bin', 'dirty.txt', 'gone.txt', 'leak.txt', 'new.txt', 'src/a.ts']);
    expect(r.diff.total).toBe(9);
    // The agent's repository config is named as changed, never shown.
    expect(by.get('.git/config')).toMatchObject({ shown: 'omitted', note: 'a git control or configuration file: named, not shown' });
    // Tracked and clean at the start: exactly its bytes then.
    expect(by.get('README.md')).toMatchObject({ change: 'modified', shown: 'text', note: '' });
    expect(by.get('README.md')!.diff).toBe('@@ -1,2 +1,2 @@\n # app\n-old line\n+new line');
    // Inside the allowlist, never hashed: against the commit, and said so.
    expect(by.get('src/a.ts')).toMatchObject({ shown: 'text', diff: '@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three' });
    expect(by.get('src/a.ts')!.note).toContain('compared with the commit the session started from');
    expect(by.get('new.txt')).toMatchObject({ change: 'created', shown: 'text', diff: '@@ -0,0 +1,1 @@\n+fresh' });
    expect(by.get('gone.txt')).toMatchObject({ change: 'deleted', shown: 'text', diff: '@@ -1,1 +0,0 @@\n-bye' });
    expect(by.get('dirty.txt')).toMatchObject({ shown: 'unknown', diff: '' });
    expect(by.get('dirty.txt')!.note).toContain('had uncommitted changes then');
    expect(by.get('blob.bin')).toMatchObject({ shown: 'binary', diff: '' });
  });

  it('never follows the agent’s symlink, and runs nothing the repository config names', async () => {
    const r = await record();
    const leak = r.diff.files.find((f) => f.path === 'leak.txt');
    expect(leak).toMatchObject({ shown: 'omitted', diff: '' });
    expect(leak!.note).toContain('symbolic link');
    expect(JSON.stringify(r)).not.toContain('TOP-SECRET-OUTSIDE');
    expect(existsSync(marker)).toBe(false);
  });

  it('does not read a file whose folder became a symlink out of the worktree', async () => {
    const wt = tempDir();
    symlinkSync(join(base, 'outside'), join(wt, 'linked'));
    const store = SessionStore.open(state, id);
    if (!store.ok) throw new Error(store.reason);
    const baseline = { v: 2 as const, root: wt, files: [], dot_git: [], git: null };
    const [f] = await worktreeDiff(wt, baseline, [{ path: 'linked/secret.txt', change: 'created', undo: 'delete' }], LIMITS);
    expect(f).toMatchObject({ shown: 'omitted', diff: '' });
    expect(f!.note).toContain('leaves the worktree');
    rmSync(wt, { recursive: true, force: true });
  });

  it('cuts a diff at a line end to its budget and says so', async () => {
    const wt = tempDir();
    writeFileSync(join(wt, 'big.txt'), Array.from({ length: 400 }, (_, i) => `line ${i}`).join('\n'));
    const baseline = { v: 2 as const, root: wt, files: [], dot_git: [], git: null };
    const [f] = await worktreeDiff(wt, baseline, [{ path: 'big.txt', change: 'created', undo: 'delete' }], { ...LIMITS, maxChars: 100 });
    expect(f).toMatchObject({ shown: 'text', truncated: true });
    expect(f!.diff.length).toBeLessThanOrEqual(100);
    expect(f!.diff.endsWith('\n')).toBe(false);
    expect(f!.diff.split('\n').at(-1)).toMatch(/^\+line \d+$/);
    rmSync(wt, { recursive: true, force: true });
  });

  it('says plainly why no changes are shown when the baseline cannot be trusted', async () => {
    const store = SessionStore.open(state, id);
    if (!store.ok) throw new Error(store.reason);
    const copy = tempDir();
    execFileSync('cp', ['-a', `${state}/.`, copy]);
    writeFileSync(join(copy, 'sessions', id, 'baseline.json'), '{"v":2,"root":"/","files":[],"dot_git":[],"git":null}\n');
    const moved = SessionStore.open(copy, id);
    if (!moved.ok) throw new Error(moved.reason);
    const r = await sessionRecord(moved.value, null, LIMITS);
    expect(r.diff.files).toEqual([]);
    expect(r.diff.problem).toMatch(/^the changes are not shown: Gatehouse cannot trust session/);
  });
});
