// What a long-lived host keeps per session (its scope cache and worktree watch, its parsed
// baseline) is let go once the session is over, and kept while it runs.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadInotify } from '../../src/runtime/inotify.js';
import { dropEndedSessionCaches, sessionScopeCache, watchWorktrees } from '../../src/runtime/scope-cache.js';
import { sha256Hex } from '../../src/core/crypto/sha256.js';
import { sessionOver } from '../../src/runtime/session-layout.js';
import { RACY_MARGIN_MS } from '../../src/runtime/scope-walk.js';
import { dropEndedSessionFiles, readVerifiedJsonHeld } from '../../src/runtime/verified-cache.js';
import { changedSince, recordBaseline, repo, tempDir } from './scope-fixture.js';

const inotify = loadInotify(join(process.cwd(), 'dist/native/inotify.node'));
beforeAll(() => watchWorktrees(inotify));
afterAll(() => watchWorktrees(null));

/** A session folder whose meta.json has `status`. */
function sessionDir(status: string): string {
  const dir = join(tempDir(), 'sessions', 's1');
  mkdirSync(dir, { recursive: true });
  setStatus(dir, status);
  return dir;
}

function setStatus(dir: string, status: string): void {
  writeFileSync(join(dir, 'meta.json'), JSON.stringify({ id: 's1', status }));
}

describe('a session that is over', () => {
  it('is one whose folder or meta.json is gone, or whose meta.json says ended; anything unreadable says nothing', () => {
    const dir = sessionDir('active');
    expect(sessionOver(dir)).toBe(false);
    setStatus(dir, 'ended');
    expect(sessionOver(dir)).toBe(true);
    writeFileSync(join(dir, 'meta.json'), '{"status": "ended"');
    expect(sessionOver(dir)).toBe(false);
    writeFileSync(join(dir, 'meta.json'), '"ended"');
    expect(sessionOver(dir)).toBe(false);
    // What the agent may plant there: a FIFO is not waited on, a link not followed.
    rmSync(join(dir, 'meta.json'));
    execFileSync('mkfifo', [join(dir, 'meta.json')]);
    expect(sessionOver(dir)).toBe(false);
    rmSync(join(dir, 'meta.json'));
    const elsewhere = sessionDir('ended');
    symlinkSync(join(elsewhere, 'meta.json'), join(dir, 'meta.json'));
    expect(sessionOver(dir)).toBe(false);
    rmSync(join(dir, 'meta.json'));
    expect(sessionOver(dir)).toBe(true);
    rmSync(dir, { recursive: true });
    expect(sessionOver(dir)).toBe(true);
  });

  it("loses its scope cache and gives its worktree watch back; a running session's stay", () => {
    const root = repo({ 'README.md': 'hello\n', 'src/a.ts': 'a\n' });
    const [live, ended, removed] = [sessionDir('active'), sessionDir('active'), sessionDir('active')];
    const cacheOf = (dir: string) => sessionScopeCache(dir, 'digest', ['src/**'], []);
    const caches = [live, ended, removed].map(cacheOf);
    const watches = caches.map((c) => c.worktreeWatch(root));
    setStatus(ended, 'ended');
    rmSync(removed, { recursive: true });
    dropEndedSessionCaches();
    expect(cacheOf(live)).toBe(caches[0]);
    expect(cacheOf(ended)).not.toBe(caches[1]);
    expect(cacheOf(removed)).not.toBe(caches[2]);
    if (inotify !== null) expect(watches.map((w) => w?.active)).toEqual([true, false, false]);
    for (const c of caches) c.close();
  });

  it('misses no change when the agent forges "ended" to make the host drop its cache and watch mid-session', async () => {
    // The agent writes meta.json: it can make a sweep close the watch between two Stops, or
    // just after it changed a file (its events still queued), and put "active" back after.
    const root = repo({ 'README.md': 'hello\n', 'src/a.ts': 'a\n' });
    const dir = sessionDir('active');
    const allow = ['src/**'];
    const b = await recordBaseline(root, { allow });
    const check = async (): Promise<string[]> => (await changedSince(root, b, { allow, cache: sessionScopeCache(dir, 'forged', allow, []) })).map((c) => `${c.change} ${c.path}`).sort();
    expect(await check()).toEqual([]);
    const first = sessionScopeCache(dir, 'forged', allow, []);
    const watch = first.worktreeWatch(root);
    writeFileSync(join(root, 'README.md'), 'changed while watched\n');
    setStatus(dir, 'ended');
    dropEndedSessionCaches();
    writeFileSync(join(root, 'notes.txt'), 'made while nothing watched\n');
    setStatus(dir, 'active');
    if (inotify !== null) expect(watch?.active).toBe(false);
    const found = await check();
    expect(found).toEqual(['created notes.txt', 'modified README.md']);
    expect(found).toEqual((await changedSince(root, b, { allow })).map((c) => `${c.change} ${c.path}`).sort());
    // And the check after it, on the cache and watch made anew, still sees both.
    expect(await check()).toEqual(found);
    sessionScopeCache(dir, 'forged', allow, []).close();
  });

  it('loses the parsed baseline the host kept; a running session keeps it', async () => {
    const [live, ended] = [sessionDir('active'), sessionDir('active')];
    const files = [live, ended].map((dir) => {
      const file = join(dir, 'baseline.json');
      writeFileSync(file, JSON.stringify({ v: 2, files: [dir] }));
      return { file, digest: sha256Hex(readFileSync(file)) };
    });
    // A copy is kept only once the file's ctime is older than the racy margin.
    await sleep(RACY_MARGIN_MS + 200);
    const read = ({ file, digest }: { file: string; digest: string }) => {
      const r = readVerifiedJsonHeld<unknown>(file, digest, 'the baseline');
      if (!r.ok) throw new Error(r.reason);
      return r.value;
    };
    const first = files.map(read);
    expect(files.map(read)).toEqual(first);
    expect(read(files[0]!)).toBe(first[0]);
    expect(read(files[1]!)).toBe(first[1]);
    setStatus(ended, 'ended');
    dropEndedSessionFiles();
    expect(read(files[0]!)).toBe(first[0]);
    const again = read(files[1]!);
    expect(again).toEqual(first[1]);
    expect(again).not.toBe(first[1]);
  });
});
