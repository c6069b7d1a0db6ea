import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Policy } from '../../src/core/policy.js';
import type { VerifierOutcome } from '../../src/core/verifier-chain.js';
import { scopeVerifier } from '../../src/runtime/stop-verifiers.js';
import type { Baseline } from '../../src/runtime/scope-baseline.js';
import { git, recordBaseline, repo, tempDir, write } from './scope-fixture.js';

const ALLOW = ['src/**'];

async function verify(root: string, opts: { scopeBudgetS?: number } = {}): Promise<() => Promise<VerifierOutcome>> {
  // Through JSON, as the session store keeps it.
  const baseline = JSON.parse(JSON.stringify(await recordBaseline(root, { allow: ALLOW }))) as Baseline;
  return async (): Promise<VerifierOutcome> => {
    const policy = { worktree: root, allow: ALLOW } as Policy;
    return scopeVerifier.verify({ policy, baseline, exclude: [], scopeBudgetS: opts.scopeBudgetS ?? null }, new AbortController().signal);
  };
}

describe('scope check verifier', () => {
  it('passes changes inside the allowlist', async () => {
    const root = repo();
    const check = await verify(root);
    write(root, 'src/a.ts', 'changed\n');
    expect(await check()).toMatchObject({ kind: 'continue' });
  });

  it('names each path outside the allowlist with the way to undo it', async () => {
    const root = repo();
    write(root, 'notes.txt', 'dirty at baseline\n');
    const check = await verify(root);
    write(root, 'README.md', 'changed\n');
    write(root, 'notes.txt', 'changed too\n');
    write(root, 'stray file.txt', 'x\n');
    git(root, 'config', 'core.hooksPath', '/tmp/elsewhere');
    const out = await check();
    expect(out.kind).toBe('block');
    const reason = out.kind === 'block' ? out.reason : '';
    expect(reason).toContain("4 files outside the task's allowed paths (src/**) changed");
    const head = git(root, 'rev-parse', 'HEAD').trim();
    expect(reason).toContain(
      `modified: README.md (restore it with \`git checkout -- README.md\`; if you staged or committed the change, \`git checkout ${head} -- README.md\` (the commit this session started from))`,
    );
    expect(reason).toContain('modified: notes.txt (write back its content as it was at the start)');
    expect(reason).toContain('created: "stray file.txt" (created in this session: delete it)');
    expect(reason).toMatch(/modified: \.git\/config \(write back its content as it was at the start\)\n {4}Lines added since the start \(take them out\):\n {8}\thooksPath = \/tmp\/elsewhere/);
  });

  it('says how to remove a linked worktree added in the session, which deleting its admin files one by one would break', async () => {
    const root = repo();
    const check = await verify(root);
    const elsewhere = join(tempDir(), 'side');
    git(root, 'worktree', 'add', '-q', elsewhere);
    const out = await check();
    const reason = out.kind === 'block' ? out.reason : '';
    expect(reason).toContain(
      "created: .git/worktrees/side/commondir (a linked worktree added in this session: delete its admin folder (`rm -rf .git/worktrees/side`), and the worktree's own folder if you made it for this task)",
    );
    // A file planted in the admin folder of a worktree that was there before is only deleted.
    const before = repo();
    const other = join(tempDir(), 'users');
    git(before, 'worktree', 'add', '-q', other);
    const checkBefore = await verify(before);
    write(before, '.git/worktrees/users/config.worktree', '[core]\n\thooksPath = /tmp/x\n');
    const planted = await checkBefore();
    expect(planted.kind === 'block' && planted.reason).toContain('created: .git/worktrees/users/config.worktree (created in this session: delete it)');
    // Done as said, the check passes again.
    git(root, 'worktree', 'remove', '--force', elsewhere);
    expect(await check()).toMatchObject({ kind: 'continue' });
    git(root, 'worktree', 'add', '-q', elsewhere);
    rmSync(elsewhere, { recursive: true, force: true });
    git(root, 'worktree', 'prune');
    expect(await check()).toMatchObject({ kind: 'continue' });
    git(root, 'worktree', 'add', '-q', elsewhere);
    rmSync(join(root, '.git', 'worktrees', 'side'), { recursive: true, force: true });
    expect(await check()).toMatchObject({ kind: 'continue' });
  });

  it("never steers anyone to delete a folder an agent's forged worktree entry names: the way back is the admin folder", async () => {
    const root = repo();
    const check = await verify(root);
    // The agent writes a worktree entry by hand whose gitdir names a folder of the user's.
    const precious = join(tempDir(), 'precious');
    write(precious, 'thesis.tex', 'years of work\n');
    write(precious, '.git', `gitdir: ${join(root, '.git', 'worktrees', 'precious')}\n`);
    write(root, '.git/worktrees/precious/gitdir', `${join(precious, '.git')}\n`);
    write(root, '.git/worktrees/precious/HEAD', `${git(root, 'rev-parse', 'HEAD').trim()}\n`);
    write(root, '.git/worktrees/precious/commondir', '../..\n');
    // git believes it: `git worktree remove --force` would take the user's folder with it.
    expect(git(root, 'worktree', 'list')).toContain(precious);
    const out = await check();
    const reason = out.kind === 'block' ? out.reason : '';
    expect(reason).toContain('delete its admin folder (`rm -rf .git/worktrees/precious`)');
    expect(reason).not.toContain('git worktree remove');
    expect(reason).not.toContain(precious);
    // Done as said: the check passes and the user's folder is still there.
    rmSync(join(root, '.git', 'worktrees', 'precious'), { recursive: true, force: true });
    expect(await check()).toMatchObject({ kind: 'continue' });
    expect(readFileSync(join(precious, 'thesis.tex'), 'utf8')).toBe('years of work\n');
  });

  it('blocks with the reason when the check runs past its deadline', async () => {
    const root = repo();
    const check = await verify(root, { scopeBudgetS: -1 });
    const out = await check();
    expect(out.kind).toBe('block');
    expect(out.kind === 'block' && out.reason).toContain('could not compare the worktree with its baseline within -1 s');
  });
});
