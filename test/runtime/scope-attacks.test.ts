import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, statSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { changes, commitAll, git, gitEnv, recordBaseline, repo, tempDir, write } from './scope-fixture.js';

// Each attack changes a file outside the allowlist and then sets up git so that git no
// longer shows the change. The check must still report it, and must never run a program
// the agent configured (each such program leaves a marker file when run).

const ALLOW = ['src/**'];

/** A shell command that leaves `marker` behind when run, then prints `out`. */
function planted(marker: string, out: string): string {
  return `sh -c 'touch ${marker}; printf "${out}"'`;
}

function gitStatus(root: string): string {
  return git(root, 'status', '--porcelain', '--untracked-files=no');
}

describe('git settings the agent can change hide nothing', () => {
  it('sees through a clean filter set in .git/config and .gitattributes, and never runs it', async () => {
    const root = repo();
    const marker = join(tempDir(), 'filter-ran');
    const b = await recordBaseline(root, { allow: ALLOW });
    git(root, 'config', 'filter.hide.clean', planted(marker, 'hello\\n'));
    write(root, '.gitattributes', 'README.md filter=hide\n');
    write(root, 'README.md', 'rewritten by the agent\n');
    expect(await changes(root, b, { allow: ALLOW })).toEqual(['modified .git/config rewrite', 'created .gitattributes delete', 'modified README.md checkout']);
    expect(existsSync(marker)).toBe(false);
    // The attack is real: git's diff runs the filter and sees no change.
    expect(spawnSync('git', ['diff', '--quiet', '--', 'README.md'], { cwd: root, env: gitEnv() }).status).toBe(0);
    expect(existsSync(marker)).toBe(true);
  });

  it('sees through a filter named by core.attributesFile outside the worktree, set before the baseline', async () => {
    const root = repo();
    const marker = join(tempDir(), 'filter-ran');
    const attributes = join(tempDir(), 'attributes');
    writeFileSync(attributes, 'README.md filter=hide\n');
    git(root, 'config', 'core.attributesFile', attributes);
    git(root, 'config', 'filter.hide.clean', planted(marker, 'hello\\n'));
    git(root, 'config', 'filter.hide.smudge', planted(marker, 'hello\\n'));
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(root, 'README.md'), later, later); // stat-dirty: git would run the filter to compare
    const b = await recordBaseline(root, { allow: ALLOW });
    write(root, 'README.md', 'rewritten by the agent\n');
    expect(await changes(root, b, { allow: ALLOW })).toEqual(['modified README.md checkout']);
    expect(existsSync(marker)).toBe(false);
  });

  it('sees a same-size edit whose mtime was put back under core.checkStat=minimal and core.trustctime=false', async () => {
    const root = repo();
    const file = join(root, 'README.md');
    const WHOLE_SECOND = 1_700_000_000;
    utimesSync(file, WHOLE_SECOND, WHOLE_SECOND);
    git(root, 'update-index', '--refresh');
    const b = await recordBaseline(root, { allow: ALLOW });
    git(root, 'config', 'core.checkStat', 'minimal');
    git(root, 'config', 'core.trustctime', 'false');
    await new Promise((r) => setTimeout(r, 20));
    writeFileSync(file, 'HELLO\n');
    utimesSync(file, WHOLE_SECOND, WHOLE_SECOND);
    expect(gitStatus(root)).toBe('');
    expect(await changes(root, b, { allow: ALLOW })).toEqual(['modified .git/config rewrite', 'modified README.md checkout']);
  });

  it('never runs a core.fsmonitor hook (set before the baseline, during the session or globally) nor a planted git hook', async () => {
    const root = repo();
    const marker = join(tempDir(), 'fsmonitor-ran');
    const hook = join(tempDir(), 'fsmonitor.sh');
    // A lying monitor: "nothing changed since any token you ask about".
    writeFileSync(hook, `#!/bin/sh\ntouch ${marker}\nprintf 'token\\0'\n`);
    chmodSync(hook, 0o755);
    git(root, 'config', 'core.fsmonitor', hook);
    writeFileSync(process.env.GIT_CONFIG_GLOBAL!, `[core]\n\tfsmonitor = ${hook}\n`);
    // A hook planted by an earlier session must not run when the baseline is taken either.
    const hookMarker = join(tempDir(), 'hook-ran');
    for (const name of ['post-index-change', 'reference-transaction', 'post-checkout']) {
      write(root, `.git/hooks/${name}`, `#!/bin/sh\ntouch ${hookMarker}\n`);
      chmodSync(join(root, `.git/hooks/${name}`), 0o755);
    }
    const b = await recordBaseline(root, { allow: ALLOW });
    write(root, 'README.md', 'changed\n');
    write(root, 'new.txt', 'planted\n');
    expect(await changes(root, b, { allow: ALLOW })).toEqual(['modified README.md checkout', 'created new.txt delete']);
    expect([existsSync(marker), existsSync(hookMarker)]).toEqual([false, false]);
    git(root, 'status', '--porcelain');
    expect(existsSync(marker)).toBe(true); // the monitor is live for git itself
  });

  it('sees through assume-unchanged and skip-worktree flags', async () => {
    const root = repo();
    const b = await recordBaseline(root, { allow: ALLOW });
    git(root, 'update-index', '--assume-unchanged', 'README.md');
    write(root, 'README.md', 'hidden?\n');
    write(root, 'docs/x.md', 'x\n');
    commitAll(root, 'docs');
    git(root, 'update-index', '--skip-worktree', 'docs/x.md');
    write(root, 'docs/x.md', 'hidden too?\n');
    expect(gitStatus(root)).toBe('');
    expect(await changes(root, b, { allow: ALLOW })).toEqual(['modified README.md checkout', 'created docs/x.md delete']);
  });

  it('sees files changed or dropped by a sparse checkout, and the sparse-checkout settings themselves', async () => {
    const root = repo({ 'README.md': 'r\n', 'docs/guide.md': 'g\n', 'docs/other.md': 'o\n', 'src/a.ts': 'a\n' });
    const b = await recordBaseline(root, { allow: ALLOW });
    write(root, 'docs/guide.md', 'edited outside the allowlist\n');
    spawnSync('git', ['sparse-checkout', 'set', 'src'], { cwd: root, env: gitEnv() });
    const found = await changes(root, b, { allow: ALLOW });
    expect(found.filter((c) => c.includes('docs/guide.md'))).toHaveLength(1);
    expect(found).toContain('deleted docs/other.md checkout');
    expect(found).toContain('modified .git/config rewrite');
    expect(found).toContain('created .git/info/sparse-checkout delete');
  });

  it('keeps a path tracked at baseline in scope after git rm --cached, an exclude rule and a commit', async () => {
    const root = repo();
    const b = await recordBaseline(root, { allow: ALLOW });
    git(root, 'rm', '-q', '--cached', 'README.md');
    writeFileSync(join(root, '.git/info/exclude'), 'README.md\n');
    write(root, 'README.md', 'edited and untracked\n');
    commitAll(root, 'drop it');
    expect(git(root, 'status', '--porcelain')).toBe('');
    expect(await changes(root, b, { allow: ALLOW })).toEqual(['modified .git/info/exclude rewrite', 'modified README.md checkout']);
  });
});

describe('ignore rules written during the session hide nothing', () => {
  it('reports a file hidden by a new or edited .gitignore, and the .gitignore files themselves', async () => {
    const root = repo({ '.gitignore': 'dist/\n', 'README.md': 'r\n' });
    const b = await recordBaseline(root, { allow: ALLOW });
    write(root, '.gitignore', 'dist/\nsecret.txt\n');
    write(root, 'secret.txt', 's\n');
    write(root, 'lib/.gitignore', '*\n');
    write(root, 'lib/payload.js', 'p\n');
    expect(git(root, 'status', '--porcelain')).toBe(' M .gitignore\n');
    expect(await changes(root, b, { allow: ALLOW })).toEqual(['modified .gitignore checkout', 'created lib/.gitignore delete', 'created lib/payload.js delete', 'created secret.txt delete']);
  });

  it('reports a file hidden by a rule added to .git/info/exclude', async () => {
    const root = repo();
    const b = await recordBaseline(root, { allow: ALLOW });
    writeFileSync(join(root, '.git/info/exclude'), 'secret.txt\n');
    write(root, 'secret.txt', 's\n');
    expect(await changes(root, b, { allow: ALLOW })).toEqual(['modified .git/info/exclude rewrite', 'created secret.txt delete']);
  });

  it('reports a file hidden by a core.excludesFile set in the repository config', async () => {
    const root = repo();
    const b = await recordBaseline(root, { allow: ALLOW });
    const rules = join(tempDir(), 'ignore');
    writeFileSync(rules, 'secret.txt\n');
    git(root, 'config', 'core.excludesFile', rules);
    write(root, 'secret.txt', 's\n');
    expect(await changes(root, b, { allow: ALLOW })).toEqual(['modified .git/config rewrite', 'created secret.txt delete']);
  });

  it('reports a file hidden by a global excludesFile set through GIT_CONFIG_GLOBAL mid-session', async () => {
    const root = repo();
    const b = await recordBaseline(root, { allow: ALLOW });
    const rules = join(tempDir(), 'ignore');
    writeFileSync(rules, 'secret.txt\n');
    writeFileSync(process.env.GIT_CONFIG_GLOBAL!, `[core]\n\texcludesFile = ${rules}\n`);
    write(root, 'secret.txt', 's\n');
    expect(spawnSync('git', ['check-ignore', '-q', 'secret.txt'], { cwd: root, env: gitEnv() }).status).toBe(0);
    expect(await changes(root, b, { allow: ALLOW })).toEqual(['created secret.txt delete']);
  });

  it('keeps the global ignore file as it was at baseline when it is edited mid-session', async () => {
    const xdgIgnore = join(process.env.XDG_CONFIG_HOME!, 'git', 'ignore');
    mkdirSync(join(process.env.XDG_CONFIG_HOME!, 'git'), { recursive: true });
    writeFileSync(xdgIgnore, '*.cache\n');
    try {
      const root = repo();
      const b = await recordBaseline(root, { allow: ALLOW });
      writeFileSync(xdgIgnore, '*.cache\nsecret.txt\n');
      write(root, 'secret.txt', 's\n');
      write(root, 'x.cache', 'c\n');
      expect(await changes(root, b, { allow: ALLOW })).toEqual(['created secret.txt delete']);
    } finally {
      unlinkSync(xdgIgnore);
    }
  });

  it('does not let a rule removed mid-session pull an ignored file into scope', async () => {
    const root = repo({ '.gitignore': 'build/\n', 'README.md': 'r\n' });
    write(root, 'build/out.js', 'o\n');
    const b = await recordBaseline(root, { allow: ['.gitignore'] });
    write(root, '.gitignore', '');
    write(root, 'build/out.js', 'o2\n');
    expect(await changes(root, b, { allow: ['.gitignore'] })).toEqual(['modified .gitignore rewrite']);
  });
});

describe('file-level tricks', () => {
  it('takes a touch as no change, and a mode change or a retargeted symlink as one', async () => {
    const root = repo();
    symlinkSync('README.md', join(root, 'link'));
    const b = await recordBaseline(root, { allow: ALLOW });
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(root, 'README.md'), later, later);
    expect(await changes(root, b)).toEqual([]);
    chmodSync(join(root, 'README.md'), 0o755);
    unlinkSync(join(root, 'link'));
    symlinkSync('src/a.ts', join(root, 'link'));
    expect(await changes(root, b)).toEqual(['modified README.md checkout', 'modified link rewrite']);
  });

  it('reports a file whose name is not valid UTF-8', async () => {
    const root = repo();
    const b = await recordBaseline(root, { allow: ALLOW });
    writeFileSync(Buffer.concat([Buffer.from(`${root}/bad-`), Buffer.from([0xff, 0xfe]), Buffer.from('.txt')]), 'hidden?\n');
    expect(await changes(root, b)).toEqual(['created bad-\\xff\\xfe.txt delete']);
    const b2 = await recordBaseline(root, { allow: ALLOW });
    expect(await changes(root, b2)).toEqual([]);
  });

  it('reports files stashed in a .git folder planted below the worktree', async () => {
    const root = repo();
    const b = await recordBaseline(root, { allow: ALLOW });
    write(root, 'docs/.git/payload.sh', 'echo hi\n');
    expect(await changes(root, b)).toEqual(['created docs/.git delete']);
  });

  it('reports a FIFO created outside the allowlist without opening it, and passes one unchanged since the baseline', async () => {
    const root = repo();
    spawnSync('mkfifo', [join(root, 'old.fifo')]);
    const b = await recordBaseline(root, { allow: ALLOW });
    spawnSync('mkfifo', [join(root, 'new.fifo')]);
    expect(statSync(join(root, 'new.fifo')).isFIFO()).toBe(true);
    expect(await changes(root, b)).toEqual(['created new.fifo delete']);
  });
});
