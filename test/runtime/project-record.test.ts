// Which worktree a project state folder stands for, as `serve --all` reads it: every file there is
// agent-writable, so a worktree is believed only when its digest is the folder's own key, and no
// link, oversized file, link-folder or moved worktree is followed.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listProjects, projectEntry, writeProjectRecord } from '../../src/runtime/project-record.js';
import { projectKey, projectsDir } from '../../src/runtime/state-base.js';

let base: string;
let root: string;

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'gh-projects-')));
  base = join(root, 'state');
  mkdirSync(projectsDir(base), { recursive: true });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** A real worktree folder and its state folder in the default layout. */
function project(name: string): { worktree: string; state: string; key: string } {
  const worktree = join(root, name);
  mkdirSync(worktree, { recursive: true });
  const key = projectKey(worktree);
  const state = join(projectsDir(base), key);
  mkdirSync(state, { recursive: true });
  return { worktree, state, key };
}

describe('project records', () => {
  it('believes a record naming the worktree whose key the folder has', () => {
    const p = project('shop');
    writeProjectRecord(p.state, p.worktree);
    expect(projectEntry(base, p.key)).toEqual({ key: p.key, state: p.state, worktree: p.worktree, problem: null });
    expect(listProjects(base).map((e) => e.key)).toEqual([p.key]);
  });

  it('does not believe a planted record naming another worktree', () => {
    const p = project('shop');
    const other = project('secrets');
    writeFileSync(join(p.state, 'project.json'), JSON.stringify({ v: 1, worktree: other.worktree }));
    expect(projectEntry(base, p.key)).toMatchObject({ worktree: null, problem: expect.stringContaining('no record or session names its worktree') });
  });

  it('does not believe a planted session meta either, and takes the newest one that fits', () => {
    const p = project('shop');
    const other = project('secrets');
    for (const [id, worktree] of [
      ['20261201-000000-aaaaaaaa', p.worktree],
      ['20261202-000000-bbbbbbbb', other.worktree],
    ] as const) {
      mkdirSync(join(p.state, 'sessions', id), { recursive: true });
      writeFileSync(join(p.state, 'sessions', id, 'meta.json'), JSON.stringify({ worktree }));
    }
    expect(projectEntry(base, p.key)?.worktree).toBe(p.worktree);
  });

  it('follows no link at the record, and reads no record past its size cap', () => {
    const p = project('shop');
    const elsewhere = join(root, 'elsewhere.json');
    writeFileSync(elsewhere, JSON.stringify({ v: 1, worktree: p.worktree }));
    symlinkSync(elsewhere, join(p.state, 'project.json'));
    expect(projectEntry(base, p.key)?.worktree).toBeNull();
    rmSync(join(p.state, 'project.json'));
    writeFileSync(join(p.state, 'project.json'), JSON.stringify({ v: 1, worktree: p.worktree, pad: 'x'.repeat(9000) }));
    expect(projectEntry(base, p.key)?.worktree).toBeNull();
  });

  it('does not serve a state folder that is a link, nor a worktree that has moved', () => {
    const real = project('shop');
    writeProjectRecord(real.state, real.worktree);
    const linked = join(root, 'linked');
    mkdirSync(linked);
    const key = projectKey(linked);
    symlinkSync(real.state, join(projectsDir(base), key));
    expect(projectEntry(base, key)).toMatchObject({ worktree: null, problem: expect.stringContaining('not a folder') });
    rmSync(real.worktree, { recursive: true });
    expect(projectEntry(base, real.key)).toMatchObject({ worktree: null, problem: expect.stringContaining('no longer exists') });
    symlinkSync(linked, real.worktree);
    expect(projectEntry(base, real.key)).toMatchObject({ worktree: null, problem: expect.stringContaining('has moved') });
  });

  it('ignores names under projects/ that are not project keys', () => {
    mkdirSync(join(projectsDir(base), '..evil'));
    mkdirSync(join(projectsDir(base), 'no-key-here'));
    expect(listProjects(base)).toEqual([]);
    expect(projectEntry(base, '../../etc')).toBeNull();
  });
});
