// The sandbox plan's read-only settings files: those that exist, and those the session's own
// render makes only after the plan (a project's first hooks file).
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { planSandbox, type SandboxPlanInput } from '../../../src/runtime/sandbox/plan.js';

let dir: string;

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'gh-plan-')));
  for (const d of ['wt', 'state', 'base', 'home/.agent', 'dist/hook']) mkdirSync(join(dir, d), { recursive: true });
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

function input(over: Partial<SandboxPlanInput>): SandboxPlanInput {
  return {
    tools: { bwrap: '/usr/bin/bwrap', version: '0.8.0', perl: '/usr/bin/perl', disableUserns: true },
    network: 'host',
    socketDir: null,
    worktree: join(dir, 'wt'),
    allow: [],
    protect: [],
    projectState: join(dir, 'state'),
    hookBundle: join(dir, 'dist', 'hook', 'hook.js'),
    agentData: { dirs: [join(dir, 'home', '.agent')], files: [] },
    agentSettings: [],
    env: { GATEHOUSE_HOME: join(dir, 'base'), XDG_CONFIG_HOME: join(dir, 'config') },
    quarantineDir: join(dir, 'state', 'quarantine'),
    ...over,
  };
}

describe('planSandbox: settings files', () => {
  it('keeps a settings file in the writable worktree read-only whether it exists at plan time or is made later, in a folder not yet made', () => {
    const existing = join(dir, 'wt', '.agent', 'settings.json');
    mkdirSync(join(dir, 'wt', '.agent'));
    writeFileSync(existing, '{}\n');
    const later = join(dir, 'wt', '.other', 'hooks.json');
    const plan = planSandbox(input({ agentSettings: [existing, later] }));
    expect(plan.ok).toBe(true);
    if (!plan.ok) return;
    expect(plan.value.spec.writable).toContain(join(dir, 'wt'));
    expect(plan.value.spec.read_only).toEqual(expect.arrayContaining([existing, later]));
  });

  it('leaves a missing settings file outside every writable folder out (the rest is read-only already)', () => {
    const outside = join(dir, 'elsewhere', 'settings.json');
    const plan = planSandbox(input({ agentSettings: [outside] }));
    expect(plan.ok).toBe(true);
    if (plan.ok) expect(plan.value.spec.read_only).not.toContain(outside);
  });
});
