// Stops judged one after another in one long-lived process (as the warm supervisor's gate worker
// judges them): what it keeps between them never hides a change or a tampered baseline.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { runHookGate } from '../../src/gate/hook-gate.js';
import { startSession } from '../../src/gate/session-lifecycle.js';
import { scopeCacheStats } from '../../src/runtime/scope-cache.js';
import { RACY_MARGIN_MS } from '../../src/runtime/scope-walk.js';
import { HOOK, tempDir, testEnv } from '../support/cli.js';

/** Gives `file` an mtime of a whole second, which utimes can put back exactly (a fresh file's has nanoseconds). */
function roundMtime(file: string): void {
  const t = new Date(Math.floor(Date.now() / 1000) * 1000 - 10_000);
  utimesSync(file, t, t);
}

/** Rewrites `file` in place with `text` (of the same length), its mtime put back exactly as it was. */
function rewriteKeepingMtime(file: string, text: string): void {
  const st = statSync(file);
  writeFileSync(file, text);
  utimesSync(file, st.atime, st.mtime);
  expect(statSync(file, { bigint: true }).mtimeNs).toBe(BigInt(st.mtimeMs) * 1_000_000n);
}

const PATH = process.env.PATH;
afterEach(() => {
  process.env.PATH = PATH;
});

/** Puts a `git` first on PATH that notes each run in `marker` and then runs the real one. */
function noteGitRuns(dir: string, marker: string): void {
  const real = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  mkdirSync(join(dir, 'bin'), { recursive: true });
  writeFileSync(join(dir, 'bin', 'git'), `#!/bin/sh\necho "$@" >> '${marker}'\nexec '${real}' "$@"\n`);
  chmodSync(join(dir, 'bin', 'git'), 0o755);
  process.env.PATH = `${join(dir, 'bin')}:${PATH ?? ''}`;
}

/** A worktree with `notes.txt` (out of scope) and `src/x.ts`, made a git repository (with a first commit where `commit`), and a session over it. */
async function sessionOver(commit: boolean) {
  const base = tempDir();
  const root = join(base, 'repo');
  mkdirSync(join(root, 'src'), { recursive: true });
  writeFileSync(join(root, 'notes.txt'), 'notes v1\n');
  writeFileSync(join(root, 'src', 'x.ts'), 'export {};\n');
  const git = (...args: string[]): string => execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  git('init', '-q');
  if (commit) {
    git('add', '-A');
    git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'base');
  }
  const r = await startSession({ agent: 'claude', worktree: root, allow: ['src/**'], require: [], stateDir: join(base, 'state'), env: testEnv(), nodePath: process.execPath, hookBundle: HOOK });
  if (!r.ok) throw new Error(r.reason);
  const { store, policyDigest } = r.value;
  const stdin = JSON.stringify({ session_id: 'c', cwd: root, hook_event_name: 'Stop', stop_hook_active: false, last_assistant_message: 'done' });
  const stop = () => runHookGate({ sessionId: store.id, eventName: 'Stop', stateDir: store.projectState, agent: 'claude', failClosed: false, policyDigest, stdin, cwd: root });
  return { base, root, store, stop };
}

describe('warm Stops in one process', () => {
  it('answers from what it kept, runs no git, then still refuses an in-place rewrite and a tampered baseline', async () => {
    const { base, root, store, stop } = await sessionOver(true);
    // The same bytes written again: a new stat key, so the first Stop hashes it and keeps the verdict.
    writeFileSync(join(root, 'notes.txt'), 'notes v1\n');
    roundMtime(join(root, 'notes.txt'));
    roundMtime(join(store.dir, 'baseline.json'));
    await sleep(RACY_MARGIN_MS + 200);
    const gitRuns = join(base, 'git-runs');
    noteGitRuns(base, gitRuns);

    expect((await stop()).exitCode).toBe(0);
    expect(scopeCacheStats(store.dir)).toEqual({ hits: 0, hashed: 1 });
    expect((await stop()).exitCode).toBe(0);
    expect(scopeCacheStats(store.dir)).toEqual({ hits: 1, hashed: 1 });
    // The scope check takes git's word for nothing: a Stop asks git nothing at all.
    expect(existsSync(gitRuns)).toBe(false);

    rewriteKeepingMtime(join(root, 'notes.txt'), 'notes v2\n');
    const refused = await stop();
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain('notes.txt');

    const baseline = join(store.dir, 'baseline.json');
    rewriteKeepingMtime(baseline, readFileSync(baseline, 'utf8').replace('notes.txt', 'notes.tx_'));
    const tampered = await stop();
    expect(tampered.exitCode).toBe(2);
    expect(tampered.stderr).toContain('baseline.json');
  });

  it('keeps what it hashed between Stops that come while the baseline is younger than the racy margin', async () => {
    const { root, store, stop } = await sessionOver(false);
    // The same bytes again (a new stat key, so a Stop hashes it), left to grow old enough to keep a verdict for.
    writeFileSync(join(root, 'notes.txt'), 'notes v1\n');
    await sleep(RACY_MARGIN_MS + 200);
    // The baseline's bytes untouched but its ctime new: every Stop within the margin parses it again.
    const baseline = join(store.dir, 'baseline.json');
    chmodSync(baseline, statSync(baseline).mode & 0o777);
    expect((await stop()).exitCode).toBe(0);
    expect(scopeCacheStats(store.dir)).toEqual({ hits: 0, hashed: 1 });
    expect((await stop()).exitCode).toBe(0);
    expect(Date.now() - statSync(baseline).ctimeMs).toBeLessThan(RACY_MARGIN_MS);
    // The same cache: keyed by the baseline's digest, not by the parsed copy made again at each Stop.
    expect(scopeCacheStats(store.dir)).toEqual({ hits: 1, hashed: 1 });
  });
});
