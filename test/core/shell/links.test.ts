import { describe, expect, it } from 'vitest';
import { analyzeShell, type ShellContext } from '../../../src/core/shell/index.js';

const ctx: ShellContext = {
  cwd: '/w',
  home: '/home/u',
  confine: '/w',
  protectedPaths: ['/home/u/.local/state/gatehouse/', '/home/u/.gitconfig', '/w/gatehouse.yaml'],
};

describe('links whose source is protected or outside the worktree', () => {
  const deny: [string, string][] = [
    ['a hard link of the policy file', 'ln ~/.local/state/gatehouse/p/sessions/s/policy.json p.json'],
    ['a hard link of the policy file by a glob', 'ln ~/.local/state/gatehouse/*/sessions/*/policy.json p.json'],
    ['a hard link through link(1)', 'link /home/u/.gitconfig g'],
    ['a symbolic link to the state folder', 'ln -s ~/.local/state/gatehouse state'],
    ['a symbolic link whose text climbs from the link folder', 'ln -s ../../home/u/.gitconfig src/g'],
    ['a symbolic link into a folder, relative to that folder', 'ln -s ../../../home/u/.gitconfig src/deep/'],
    ['a relative symbolic link made with -r', 'ln -sr ../home/u/.gitconfig g'],
    ['a symbolic link to the config file next to it', 'ln -sf gatehouse.yaml g.yaml'],
    ['cp -l of the state folder', 'cp -al ~/.local/state/gatehouse backup'],
    ['cp -s of the global git config', 'cp -s /home/u/.gitconfig g'],
    ['a link source only known at run time', 'ln -s "$T" x'],
    ['a link out of the worktree', 'ln -s /usr/lib lib'],
    ['a hard link of a file outside the worktree', 'ln /etc/hosts hosts'],
    ['ln -t', 'ln -s -t src ~/.gitconfig'],
    ['a link through /proc', 'ln -s /proc/self/root/home/u/.gitconfig g'],
  ];
  it.each(deny)('refuses %s', (_name, cmd) => {
    const a = analyzeShell(cmd, ctx);
    expect(a.class, a.reason).toBe('deny');
    expect(a.reason).toMatch(/it links to .*Instead, (copy what you need with cp rather than link it|copy the file with cp, or link to a path inside \/w)\.$/);
  });

  const ask: string[] = ['ln -s ../lib src/lib', 'ln -s src/a.ts b.ts', 'ln a.ts b.ts', 'cp -l a b', 'cp -r a b'];
  it.each(ask)('asks for %j, a link inside the worktree', (cmd) => {
    expect(analyzeShell(cmd, ctx).class).toBe('ask');
  });

  it('lets a link out of the worktree through when writes are not confined', () => {
    expect(analyzeShell('ln -s /usr/lib lib', { ...ctx, confine: null }).class).toBe('ask');
    expect(analyzeShell('ln -s ~/.gitconfig g', { ...ctx, confine: null }).class).toBe('deny');
  });
});
