import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { startSession, type StartOptions } from '../../src/gate/session-lifecycle.js';
import { HOOK, tempDir, testEnv } from '../support/cli.js';

let root: string;
let state: string;

beforeEach(() => {
  const base = tempDir();
  root = join(base, 'repo');
  state = join(base, 'state');
  mkdirSync(root, { recursive: true });
});

const opts = (o: Partial<StartOptions> = {}): StartOptions => ({
  agent: 'claude',
  worktree: root,
  allow: [],
  require: [],
  stateDir: state,
  env: testEnv(),
  nodePath: process.execPath,
  hookBundle: HOOK,
  ...o,
});

describe('policy compile', () => {
  it('merges config and flags: allow patterns append and dedupe, --require replaces a producer of the same name', async () => {
    writeFileSync(
      join(root, 'gatehouse.yaml'),
      'gate:\n  allow: ["src/**", "docs/"]\n  producers:\n    - name: test\n      command: "npm test"\n      timeout_s: 20\n    - name: lint\n      command: ["npm", "run", "lint"]\n      required: false\n  sequential: true\n  posture: fail-closed\n',
    );
    const r = await startSession(opts({ allow: ['src/**', 'test/'], require: ["test=npx vitest run 'a b'"] }));
    if (!r.ok) throw new Error(r.reason);
    const p = r.value.policy;
    expect(p.allow).toEqual(['src/**', 'docs/', 'test/']);
    expect(p.producers).toEqual([
      { name: 'test', kind: 'check', command: ['npx', 'vitest', 'run', 'a b'], required: true, timeout_s: 300 },
      { name: 'lint', kind: 'check', command: ['npm', 'run', 'lint'], required: false, timeout_s: 300 },
    ]);
    expect(p).toMatchObject({ sequential: true, posture: 'fail-closed', max_stop_blocks: 8, worktree: root, agent: 'claude' });
    // The policy on disk is what the hook reads.
    expect(JSON.parse(readFileSync(join(r.value.store.dir, 'policy.json'), 'utf8'))).toEqual(p);
    // Fail-closed is baked into the rendered command.
    expect(readFileSync(join(root, '.claude/settings.local.json'), 'utf8')).toContain('--fail-closed');
  });

  it('protects the state dir, every settings level and the config files', async () => {
    const r = await startSession(opts({ allow: ['**'] }));
    if (!r.ok) throw new Error(r.reason);
    const p = r.value.policy;
    expect(p.protect).toEqual(
      expect.arrayContaining([
        state,
        join(root, '.claude/settings.local.json'),
        join(root, '.claude/settings.json'),
        join(homedir(), '.claude/settings.json'),
        join(root, 'gatehouse.yaml'),
        join(root, 'gatehouse.toml'),
      ]),
    );
    expect(p.scope_exclude).toEqual(['.claude/settings.local.json']);
  });

  it("protects the settings files of the session's HOME, not Gatehouse's own", async () => {
    const home = tempDir();
    const r = await startSession(opts({ allow: ['src/**'], env: testEnv({ HOME: home }) }));
    if (!r.ok) throw new Error(r.reason);
    expect(r.value.policy.protect).toEqual(expect.arrayContaining([join(home, '.claude/settings.json'), join(home, '.claude/settings.local.json')]));
    expect(r.value.policy.protect).not.toContain(join(homedir(), '.claude/settings.json'));
  });

  it('protects every file that can switch hooks off or run code later: git control files, user git config, Gatehouse config and install', async () => {
    execFileSync('git', ['init', '-q'], { cwd: root });
    const home = tempDir();
    const r = await startSession(opts({ allow: ['src/**'], env: testEnv({ HOME: home, XDG_CONFIG_HOME: join(home, 'cfg') }) }));
    if (!r.ok) throw new Error(r.reason);
    const { protect, restorable } = r.value.policy;
    const git = join(root, '.git');
    const dist = dirname(dirname(HOOK));
    expect(protect).toEqual(
      expect.arrayContaining([
        join(git, 'config'),
        join(git, 'hooks'),
        join(git, 'info'),
        join(git, 'modules'),
        join(home, '.gitconfig'),
        join(home, 'cfg', 'git'),
        join(home, 'cfg', 'gatehouse'),
        dist,
      ]),
    );
    // The way back may write back what the scope check compares (control files, the user's git
    // config), never Gatehouse's own files or the agent's settings.
    expect(restorable).toEqual(expect.arrayContaining([join(git, 'config'), join(git, 'hooks'), join(home, '.gitconfig')]));
    for (const never of [state, join(root, '.claude/settings.local.json'), join(home, '.claude/settings.json'), dist]) expect(restorable).not.toContain(never);
  });

  it('leaves a git control folder writable when an allow pattern names it explicitly', async () => {
    execFileSync('git', ['init', '-q'], { cwd: root });
    const r = await startSession(opts({ allow: ['src/**', '.git/hooks/**'] }));
    if (!r.ok) throw new Error(r.reason);
    expect(r.value.policy.protect).not.toContain(join(root, '.git', 'hooks'));
    expect(r.value.policy.protect).toContain(join(root, '.git', 'config'));
  });

  it('refuses an unsafe or reused session id', async () => {
    expect(await startSession(opts({ id: '../x' }))).toMatchObject({ ok: false });
    expect((await startSession(opts({ id: 'same' }))).ok).toBe(true);
    const again = await startSession(opts({ id: 'same' }));
    expect(again).toMatchObject({ ok: false });
    if (!again.ok) expect(again.reason).toContain('already exists');
  });

  it('refuses a worktree that does not exist', async () => {
    const r = await startSession(opts({ worktree: join(root, 'nope') }));
    expect(r).toMatchObject({ ok: false });
  });
});
