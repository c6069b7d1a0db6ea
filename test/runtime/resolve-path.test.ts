import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compileWriteScope, decideWrite } from '../../src/core/write-gate.js';
import { resolveWriteTarget } from '../../src/runtime/resolve-path.js';

let base: string;
let root: string;
let outside: string;
let state: string;

function gate(target: string, opts: { allow?: string[]; cwd?: string } = {}) {
  const scope = compileWriteScope({
    worktree: root,
    allow: opts.allow ?? ['src/**', 'docs/', 'top.txt'],
    protect: [state, join(root, '.claude', 'settings.local.json'), join(root, 'gatehouse.yaml')],
    producers: [],
  });
  return decideWrite(scope, 'Write', [{ target, real: resolveWriteTarget(target, opts.cwd ?? root) }]);
}

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'gh-path-')));
  root = join(base, 'repo');
  outside = join(base, 'outside');
  state = join(base, 'state');
  for (const d of [root, outside, state, join(root, 'src'), join(root, 'docs'), join(root, '.claude')]) mkdirSync(d, { recursive: true });
  writeFileSync(join(outside, 'secret.txt'), 'x');
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

describe('write gate with real paths', () => {
  it('allows a new file inside an allowed folder', () => {
    expect(gate(join(root, 'src/new.ts'))).toMatchObject({ decision: 'allow', rule: 'write.allowed' });
  });

  it('allows a new file in deep folders that do not exist yet', () => {
    expect(gate(join(root, 'src/a/b/c/d/e.ts')).decision).toBe('allow');
  });

  it('resolves a relative target against the event cwd', () => {
    expect(gate('new.ts', { cwd: join(root, 'src') }).decision).toBe('allow');
    expect(gate('new.ts', { cwd: root })).toMatchObject({ decision: 'block', rule: 'write.not_allowed' });
  });

  it('refuses a file outside the allowlist inside the worktree', () => {
    const v = gate(join(root, 'package.json'));
    expect(v).toMatchObject({ decision: 'block', rule: 'write.not_allowed' });
    if (v.decision === 'block') {
      expect(v.reason).toContain('package.json');
      expect(v.reason).toContain('src/**');
    }
  });

  it('refuses .. traversal out of an allowed folder', () => {
    expect(gate(join(root, 'src/../package.json')).decision).toBe('block');
    expect(gate(`${root}/src/../../outside/secret.txt`)).toMatchObject({ rule: 'write.outside_worktree' });
    expect(gate('../../outside/x.txt', { cwd: join(root, 'src') })).toMatchObject({ rule: 'write.outside_worktree' });
  });

  it('refuses an absolute path outside the worktree', () => {
    expect(gate('/etc/passwd')).toMatchObject({ decision: 'block', rule: 'write.outside_worktree' });
  });

  it('refuses a symlinked file inside the allowlist whose target is outside', () => {
    symlinkSync(join(outside, 'secret.txt'), join(root, 'src/link.txt'));
    expect(gate(join(root, 'src/link.txt'))).toMatchObject({ decision: 'block', rule: 'write.outside_worktree' });
  });

  it('refuses a write through a symlinked parent folder that leaves the worktree', () => {
    symlinkSync(outside, join(root, 'src/out'));
    expect(gate(join(root, 'src/out/new.txt'))).toMatchObject({ decision: 'block', rule: 'write.outside_worktree' });
  });

  it('refuses a dangling symlink whose target would be created outside', () => {
    symlinkSync(join(outside, 'not-yet.txt'), join(root, 'src/dangling.txt'));
    expect(gate(join(root, 'src/dangling.txt'))).toMatchObject({ decision: 'block', rule: 'write.outside_worktree' });
  });

  it('refuses a link to a link that ends outside', () => {
    symlinkSync(join(outside, 'secret.txt'), join(root, 'docs/hop1'));
    symlinkSync(join(root, 'docs/hop1'), join(root, 'src/hop2'));
    expect(gate(join(root, 'src/hop2'))).toMatchObject({ decision: 'block', rule: 'write.outside_worktree' });
  });

  it('refuses a relative dangling link chain that climbs out', () => {
    symlinkSync('../../outside/gone/x.txt', join(root, 'src/rel'));
    expect(gate(join(root, 'src/rel'))).toMatchObject({ decision: 'block', rule: 'write.outside_worktree' });
  });

  it('refuses a link inside the allowlist pointing at a not-allowed file inside the worktree', () => {
    writeFileSync(join(root, 'package.json'), '{}');
    symlinkSync(join(root, 'package.json'), join(root, 'src/pkg.json'));
    expect(gate(join(root, 'src/pkg.json'))).toMatchObject({ decision: 'block', rule: 'write.not_allowed' });
  });

  it('allows a link that stays inside the allowlist', () => {
    writeFileSync(join(root, 'src/real.ts'), '');
    symlinkSync('real.ts', join(root, 'src/alias.ts'));
    expect(gate(join(root, 'src/alias.ts')).decision).toBe('allow');
  });

  it('refuses a new file whose nearest existing parent resolves outside', () => {
    symlinkSync(outside, join(root, 'docs/ext'));
    expect(gate(join(root, 'docs/ext/a/b/c.md'))).toMatchObject({ rule: 'write.outside_worktree' });
  });

  it('refuses a symlink loop as unresolvable', () => {
    symlinkSync(join(root, 'src/loop-b'), join(root, 'src/loop-a'));
    symlinkSync(join(root, 'src/loop-a'), join(root, 'src/loop-b'));
    expect(gate(join(root, 'src/loop-a'))).toMatchObject({ decision: 'block', rule: 'write.unresolvable' });
  });

  it('refuses a path with a NUL byte', () => {
    expect(gate(join(root, 'src/a\0b.ts'))).toMatchObject({ decision: 'block', rule: 'write.unresolvable' });
  });

  it('refuses a path through a regular file as unresolvable', () => {
    writeFileSync(join(root, 'src/file'), '');
    expect(gate(join(root, 'src/file/child.ts'))).toMatchObject({ decision: 'block', rule: 'write.unresolvable' });
  });

  it('refuses the protected paths even when the allowlist covers them', () => {
    expect(gate(join(root, '.claude/settings.local.json'), { allow: ['**'] })).toMatchObject({ rule: 'write.protected' });
    expect(gate(join(root, 'gatehouse.yaml'), { allow: ['**'] })).toMatchObject({ rule: 'write.protected' });
  });

  it('refuses the state dir through a link inside the worktree', () => {
    symlinkSync(state, join(root, 'src/st'));
    expect(gate(join(root, 'src/st/policy.json'), { allow: ['**'] })).toMatchObject({ decision: 'block' });
  });

  it('refuses writing the worktree root itself', () => {
    expect(gate(root, { allow: ['**'] })).toMatchObject({ decision: 'block' });
  });

  it('handles unicode names and spaces', () => {
    mkdirSync(join(root, 'docs/ünï cødé'), { recursive: true });
    expect(gate(join(root, 'docs/ünï cødé/日本 語.md')).decision).toBe('allow');
    expect(gate(join(root, 'ünï cødé.md'))).toMatchObject({ rule: 'write.not_allowed' });
  });

  it('matches an exact file pattern and nothing beside it', () => {
    expect(gate(join(root, 'top.txt')).decision).toBe('allow');
    expect(gate(join(root, 'top.txt.bak')).decision).toBe('block');
  });

  it('lets everything through when the policy enforces nothing', () => {
    const scope = compileWriteScope({ worktree: root, allow: [], protect: [state], producers: [] });
    expect(decideWrite(scope, 'Write', [{ target: '/etc/x', real: resolveWriteTarget('/etc/x', root) }])).toMatchObject({ rule: 'passthrough' });
  });

  it('allows when only producers are configured (no allowlist)', () => {
    const scope = compileWriteScope({ worktree: root, allow: [], protect: [state], producers: [{ name: 't', kind: 'check', command: ['true'], required: true, timeout_s: 5 }] });
    expect(decideWrite(scope, 'Write', [{ target: '/etc/x', real: resolveWriteTarget('/etc/x', root) }])).toMatchObject({ decision: 'allow', rule: 'write.no_allowlist' });
  });
});

describe('protected paths without an allowlist', () => {
  it('still refuses the gate files when only producers are configured', () => {
    const scope = compileWriteScope({ worktree: root, allow: [], protect: [state], producers: [{ name: 't', kind: 'check', command: ['true'], required: true, timeout_s: 5 }] });
    const target = join(state, 'sessions/x/policy.json');
    expect(decideWrite(scope, 'Write', [{ target, real: resolveWriteTarget(target, root) }])).toMatchObject({ decision: 'block', rule: 'write.protected' });
  });
});

describe('a session that enforces nothing else still protects the gate files', () => {
  it('refuses a Write to the agent settings and the state folder with no allowlist and no producer', () => {
    const settings = join(root, '.claude', 'settings.local.json');
    const scope = compileWriteScope({ worktree: root, allow: [], protect: [state, settings], producers: [] });
    expect(decideWrite(scope, 'Write', [{ target: settings, real: resolveWriteTarget(settings, root) }])).toMatchObject({ decision: 'block', rule: 'write.protected' });
    const policy = join(state, 'sessions/x/policy.json');
    expect(decideWrite(scope, 'Write', [{ target: policy, real: resolveWriteTarget(policy, root) }])).toMatchObject({ decision: 'block', rule: 'write.protected' });
    expect(decideWrite(scope, 'Write', [{ target: join(root, 'a.txt'), real: resolveWriteTarget(join(root, 'a.txt'), root) }])).toMatchObject({ decision: 'allow', rule: 'passthrough' });
  });

  it('refuses a protected file reached through a symlink in a pass-through session', () => {
    symlinkSync(join(state), join(root, 'st'));
    const scope = compileWriteScope({ worktree: root, allow: [], protect: [state], producers: [] });
    const t = join(root, 'st', 'policy.json');
    expect(decideWrite(scope, 'Write', [{ target: t, real: resolveWriteTarget(t, root) }])).toMatchObject({ decision: 'block', rule: 'write.protected' });
  });
});

describe('the way back', () => {
  const gitConfig = (): string => join(root, '.git', 'config');
  function scopeWithGit() {
    mkdirSync(join(root, '.git'), { recursive: true });
    return compileWriteScope({ worktree: root, allow: ['src/**'], protect: [state, gitConfig()], restorable: [gitConfig()], producers: [] });
  }

  it('lets an undo write a path outside the allowlist, inside the worktree', () => {
    const t = join(root, 'package.json');
    const scope = scopeWithGit();
    expect(decideWrite(scope, 'Write', [{ target: t, real: resolveWriteTarget(t, root) }])).toMatchObject({ decision: 'block', rule: 'write.not_allowed' });
    expect(decideWrite(scope, 'Write', [{ target: t, real: resolveWriteTarget(t, root), wayBack: true }])).toMatchObject({ decision: 'allow', rule: 'write.way_back' });
  });

  it('never lets an undo leave the worktree or touch the gate files', () => {
    const scope = scopeWithGit();
    const out = join(outside, 'secret.txt');
    expect(decideWrite(scope, 'Write', [{ target: out, real: resolveWriteTarget(out, root), wayBack: true }])).toMatchObject({ decision: 'block', rule: 'write.outside_worktree' });
    const policy = join(state, 'policy.json');
    expect(decideWrite(scope, 'Write', [{ target: policy, real: resolveWriteTarget(policy, root), wayBack: true }])).toMatchObject({ decision: 'block', rule: 'write.protected' });
  });

  it('lets an undo rewrite a git control file only when it is restorable', () => {
    const scope = scopeWithGit();
    expect(decideWrite(scope, 'Write', [{ target: gitConfig(), real: resolveWriteTarget(gitConfig(), root) }])).toMatchObject({ decision: 'block', rule: 'write.protected' });
    expect(decideWrite(scope, 'Write', [{ target: gitConfig(), real: resolveWriteTarget(gitConfig(), root), wayBack: true }])).toMatchObject({ decision: 'allow', rule: 'write.way_back' });
  });

  it('names a way back in the refusal of a path outside the allowlist', () => {
    const t = join(root, 'package.json');
    const v = decideWrite(scopeWithGit(), 'Write', [{ target: t, real: resolveWriteTarget(t, root) }]);
    expect(v.decision === 'block' && v.reason).toContain('inside the allowed paths');
  });
});
