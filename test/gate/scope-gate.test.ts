// The scope check through the real rendered Stop hook and `session check`, after the agent set
// every piece of git state it can reach to hide its out-of-scope edits (as unseen code would).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { startGitSession } from '../support/git-session.js';
import { gatehouse, tempDir } from '../support/cli.js';
import { runRenderedHook } from '../support/rendered-hook.js';

let root: string;
let state: string;
let id: string;

const git = (...args: string[]): string => execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
const stop = () => runRenderedHook(root, 'Stop', { hook_event_name: 'Stop', cwd: root, last_assistant_message: 'done', stop_hook_active: false });

beforeEach(async () => {
  const base = tempDir();
  root = join(base, 'repo');
  state = join(base, 'state');
  mkdirSync(join(root, 'src'), { recursive: true });
  for (const f of ['a.txt', 'b.txt', 'c.txt', 'd.txt', 'e.txt']) writeFileSync(join(root, f), `${f} v1\n`);
  writeFileSync(join(root, 'src', 'x.ts'), 'export {};\n');
  id = await startGitSession(root, state);
});

describe('the scope check does not take git’s word for anything', () => {
  it('names every out-of-scope edit hidden with index flags, config, attributes, filters, fsmonitor and new ignore rules', () => {
    const marker = join(root, '..', 'fsmonitor-ran');
    git('update-index', '--assume-unchanged', 'a.txt');
    writeFileSync(join(root, 'a.txt'), 'a.txt v2\n');
    git('update-index', '--skip-worktree', 'b.txt');
    writeFileSync(join(root, 'b.txt'), 'b.txt v2\n');
    // Same size, mtime put back: only ctime and content tell.
    const st = statSync(join(root, 'c.txt'));
    writeFileSync(join(root, 'c.txt'), 'c.txt v9\n');
    utimesSync(join(root, 'c.txt'), st.atime, st.mtime);
    git('config', 'core.checkStat', 'minimal');
    git('config', 'core.trustctime', 'false');
    // A clean filter that makes d.txt look as committed, through info/attributes.
    git('config', 'filter.hide.clean', 'git show HEAD:d.txt');
    writeFileSync(join(root, '.git', 'info', 'attributes'), 'd.txt filter=hide\n');
    writeFileSync(join(root, 'd.txt'), 'd.txt v2, hidden by a filter\n');
    git('config', 'core.fsmonitor', `touch ${marker}; echo`);
    // A new file hidden only by an ignore rule added now.
    writeFileSync(join(root, '.git', 'info', 'exclude'), 'leak.txt\n');
    writeFileSync(join(root, 'leak.txt'), 'x\n');

    const r = stop();
    expect(r.status).toBe(2);
    for (const path of ['a.txt', 'b.txt', 'c.txt', 'd.txt', 'leak.txt', '.git/config', '.git/info/attributes', '.git/info/exclude']) expect(r.stderr, path).toContain(` ${path} (`);
    expect(r.stderr).not.toContain('e.txt');
    expect(existsSync(marker)).toBe(false);

    const end = gatehouse(['session', 'check', id, '--worktree', root, '--state-dir', state]);
    expect(end.status).toBe(1);
    for (const path of ['a.txt', 'b.txt', 'c.txt', 'd.txt', 'leak.txt']) expect(end.stdout, path).toContain(path);
    expect(existsSync(marker)).toBe(false);
  });

  it('reports a planted hook and a file removed from the index and hidden by .gitignore', () => {
    writeFileSync(join(root, '.git', 'hooks', 'pre-commit'), '#!/bin/sh\necho pwned\n');
    git('rm', '-q', '--cached', 'e.txt');
    writeFileSync(join(root, '.gitignore'), 'e.txt\n');
    writeFileSync(join(root, 'e.txt'), 'e.txt v2\n');
    const r = stop();
    expect(r.status).toBe(2);
    for (const path of ['.git/hooks/pre-commit', 'e.txt', '.gitignore']) expect(r.stderr, path).toContain(` ${path} (`);
  });

  it('lets commits, a stash and its pop inside the allowlist through', () => {
    writeFileSync(join(root, 'src', 'x.ts'), 'export const x = 1;\n');
    git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qam', 'work');
    writeFileSync(join(root, 'src', 'y.ts'), 'export const y = 1;\n');
    git('add', 'src/y.ts');
    git('stash', '-q');
    git('stash', 'pop', '-q');
    expect(stop().status).toBe(0);
  });

  it('stays quick with a 1 TiB sparse file inside the allowlist', () => {
    execFileSync('truncate', ['-s', '1T', join(root, 'src', 'huge.bin')]);
    expect(stop().status).toBe(0);
  });
});

describe('the texts kept to tell the way back to a changed control file', () => {
  const sessionFile = (name: string): string => join(state, 'sessions', id, name);

  it('live beside the baseline, pinned by a digest in it, and still give the lines to take out', () => {
    const baseline = JSON.parse(readFileSync(sessionFile('baseline.json'), 'utf8')) as { git: Record<string, unknown>; texts_sha256: string };
    expect(baseline.git.control_text).toEqual([]);
    const bytes = readFileSync(sessionFile('baseline-text.json'));
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(baseline.texts_sha256);
    const texts = JSON.parse(bytes.toString('utf8')) as { control: [string, string][] };
    expect(texts.control.map(([path]) => path)).toContain('.git/config');

    git('config', 'core.editor', 'planted-editor');
    const r = stop();
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(' .git/config (');
    expect(r.stderr).toContain('Lines added since the start (take them out)');
    expect(r.stderr).toContain('planted-editor');
  });

  it('altered by the agent, cost only the hint: the refusal stands, names the file, and the session log says why', () => {
    // Texts that would tell the agent its planted line was there from the start.
    git('config', 'core.editor', 'planted-editor');
    const config = readFileSync(join(root, '.git', 'config'), 'utf8');
    writeFileSync(sessionFile('baseline-text.json'), `${JSON.stringify({ control: [['.git/config', config]], watch: [] })}\n`);
    const r = stop();
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(' .git/config (');
    expect(r.stderr).not.toContain('Lines added since the start');
    expect(r.stderr).not.toContain('Only its mode or line endings changed');
    expect(readFileSync(sessionFile('gate.log'), 'utf8')).toContain("the baseline's file texts (baseline-text.json) was changed after the session started");
  });
});
