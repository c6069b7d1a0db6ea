// The PreToolUse side of the way back and of the hardened shell analysis, through the real
// rendered hook: undoing an out-of-scope change passes, everything else stays refused.
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { startSession } from '../../src/gate/session-lifecycle.js';
import { HOOK, tempDir, testEnv } from '../support/cli.js';
import { runRenderedHook } from '../support/rendered-hook.js';

let root: string;
let state: string;

beforeEach(() => {
  const base = tempDir();
  root = join(base, 'repo');
  state = join(base, 'state');
  mkdirSync(join(root, 'src'), { recursive: true });
  writeFileSync(join(root, 'package.json'), '{}\n');
  writeFileSync(join(root, 'src', 'a.ts'), 'export {};\n');
  const git = (...args: string[]): void => void execFileSync('git', args, { cwd: root, stdio: 'ignore' });
  git('init', '-q');
  git('add', '-A');
  git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'base');
});

async function start(allow: string[] = ['src/**'], config?: string): Promise<void> {
  if (config !== undefined) writeFileSync(join(root, 'gatehouse.yaml'), config);
  const r = await startSession({ agent: 'claude', worktree: root, allow, require: [], stateDir: state, env: testEnv(), nodePath: process.execPath, hookBundle: HOOK });
  if (!r.ok) throw new Error(r.reason);
}

const bash = (command: string) => ({ hook_event_name: 'PreToolUse', cwd: root, tool_name: 'Bash', tool_input: { command } });
const writeTool = (file: string, content = 'x') => ({ hook_event_name: 'PreToolUse', cwd: root, tool_name: 'Write', tool_input: { file_path: file, content } });
const pre = (payload: unknown) => runRenderedHook(root, 'PreToolUse', payload);

describe('the way back at PreToolUse', () => {
  it('lets git checkout and git restore put back a file outside the allowlist', async () => {
    await start();
    for (const cmd of ['git checkout -- package.json', 'git checkout HEAD -- package.json', 'git restore package.json', 'git restore --worktree -- package.json']) {
      expect(pre(bash(cmd)).status, cmd).toBe(0);
    }
    // Content from another commit is no restore: refused while the file is unchanged.
    expect(pre(bash('git checkout other-branch -- package.json')).status).toBe(2);
  });

  it('refuses a write to an unchanged file outside the allowlist, and allows it once the file already differs', async () => {
    await start();
    expect(pre(bash('echo "{}" > package.json')).status).toBe(2);
    expect(pre(writeTool(join(root, 'package.json'))).status).toBe(2);
    appendFileSync(join(root, 'package.json'), 'oops');
    expect(pre(bash('printf "{}\\n" > package.json')).status).toBe(0);
    expect(pre(writeTool(join(root, 'package.json'), '{}\n')).status).toBe(0);
    // A created file differs from a baseline that did not have it.
    writeFileSync(join(root, 'notes.txt'), 'x');
    expect(pre(writeTool(join(root, 'notes.txt'), 'y')).status).toBe(0);
    // Never out of the worktree, whatever differs.
    expect(pre(writeTool(join(tempDir(), 'elsewhere.txt'))).status).toBe(2);
  });

  // The way back trusts the baseline only once it matches the digest recorded at start: an altered
  // one (a path it claims differs, a missing entry, a file the probe cannot read) lifts no refusal.
  it('keeps refusing an unchanged file when the baseline was altered to say it differs, or to be unreadable', async () => {
    await start();
    const sessions = join(state, 'sessions');
    const file = join(sessions, readdirSync(sessions)[0]!, 'baseline.json');
    const recorded = readFileSync(file, 'utf8');
    const withoutPackage = JSON.parse(recorded) as { files: [string, ...unknown[]][] };
    withoutPackage.files = withoutPackage.files.filter((f) => f[0] !== 'package.json');
    for (const altered of [JSON.stringify(withoutPackage), recorded.replace(/"package\.json",\n\s*"[^"]*"/, '"package.json", "0:0:0:0:100644"'), '{"v":2,"files":7}', '[]', 'not json']) {
      writeFileSync(file, altered);
      expect(pre(writeTool(join(root, 'package.json'))).status, altered.slice(0, 60)).toBe(2);
      expect(pre(bash('echo "{}" > package.json')).status, altered.slice(0, 60)).toBe(2);
    }
    // The recorded baseline, once the file truly differs: the way back opens.
    writeFileSync(file, recorded);
    appendFileSync(join(root, 'package.json'), 'oops');
    expect(pre(writeTool(join(root, 'package.json'), '{}\n')).status).toBe(0);
  });

  it('lets a changed git config be written back, and refuses changing an unchanged one', async () => {
    await start();
    const config = join(root, '.git', 'config');
    expect(pre(writeTool(config)).status).toBe(2);
    expect(pre(bash('git config core.hooksPath .githooks')).status).toBe(2);
    const original = readFileSync(config, 'utf8');
    execFileSync('git', ['config', 'core.hooksPath', '.githooks'], { cwd: root });
    expect(pre(bash('git config --unset core.hooksPath')).status).toBe(0);
    expect(pre(writeTool(config, original)).status).toBe(0);
  });

  // The scope check skips git's temporary info/refs_XXXXXX (a gc writes it), so the way back, which
  // opens only for what differs from the baseline, never opens for it: the agent cannot use the name.
  it("refuses writing git's temporary info/refs name, before and after something planted it", async () => {
    await start();
    const temp = join(root, '.git', 'info', 'refs_Hz0pWk');
    expect(pre(writeTool(temp)).status).toBe(2);
    expect(pre(bash('echo x > .git/info/refs_Hz0pWk')).status).toBe(2);
    writeFileSync(temp, 'planted by a command no gate saw\n');
    expect(pre(writeTool(temp)).status).toBe(2);
    expect(pre(bash('echo x > .git/info/refs_Hz0pWk')).status).toBe(2);
  });

  it('never lets the way back write the state folder or the agent settings', async () => {
    await start();
    const settings = join(root, '.claude', 'settings.local.json');
    appendFileSync(settings, ' ');
    expect(pre(writeTool(settings, '{}')).status).toBe(2);
    expect(pre(bash(`echo '{}' > ${settings}`)).status).toBe(2);
  });
});

describe('Bash that Gatehouse cannot read whole, or whose targets expand', () => {
  it('refuses an unreadable command that could write, even after a harmless first line', async () => {
    await start();
    const r = pre(bash('rm -rf src/../package.json\n(((('));
    expect(r.status).toBe(2);
  });

  it('refuses an unreadable command that names a path when no person can be asked, and allows one that names none', async () => {
    await start();
    const r = pre(bash('cat "src/a.ts'));
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('could not read all of it');
    expect(pre(bash('echo "hello')).status).toBe(0);
  });

  it('refuses targets that expand to protected files or out of the worktree', async () => {
    await start();
    for (const cmd of [
      'echo \'{"disableAllHooks":true}\' > ~/.claude/settings.json',
      'echo x >> "$HOME/.gitconfig"',
      'cp x ${HOME}/.config/gatehouse/hooks.json',
      `echo x > ${state}/*/policy.json`,
      'echo x > "$OUT"',
    ]) {
      expect(pre(bash(cmd)).status, cmd).toBe(2);
    }
  });

  it('holds each file a plain glob target matches to the allowlist', async () => {
    await start();
    writeFileSync(join(root, 'src', 'b.ts'), '');
    expect(pre(bash('echo x > pack*.json')).status).toBe(2);
    expect(pre(bash("sed -i 's/a/b/' src/*.ts")).status).toBe(0);
    expect(pre(bash("sed -i 's/a/b/' *.json src/*.ts")).status).toBe(2);
    // Nothing matches: bash writes the word as written, a new file in src/.
    expect(pre(bash('echo x > src/new*.ts')).status).toBe(0);
  });

  it('refuses a link to the session policy, a spelling of our CLI, and planting git hooks', async () => {
    await start();
    for (const cmd of [
      `ln ${state}/sessions/*/policy.json src/p.json`,
      `ln -s ${join(homedir(), '.claude', 'settings.json')} src/s.json`,
      'node dist/./cli.js approve --latest',
      'echo "#!/bin/sh" > .git/hooks/pre-commit',
      'cp evil .git/hooks/post-checkout',
    ]) {
      expect(pre(bash(cmd)).status, cmd).toBe(2);
    }
  });

  it('keeps ordinary work allowed', async () => {
    await start();
    for (const cmd of [
      'npm test',
      'git status',
      'git commit -qam wip',
      'git stash',
      'ls src',
      'cat package.json | grep name',
      'echo x > src/b.ts',
      'mkdir -p src/x',
      'git diff HEAD -- package.json',
    ]) {
      expect(pre(bash(cmd)).status, cmd).toBe(0);
    }
  });
});

describe("the user's git config, watched like the repository's control files", () => {
  it('refuses the stop when code planted in ~/.gitconfig by a write no gate saw, names it, and lets it be written back', async () => {
    const home = tempDir();
    const gitconfig = join(home, '.gitconfig');
    writeFileSync(gitconfig, '[user]\n\tname = me\n');
    const r = await startSession({ agent: 'claude', worktree: root, allow: ['src/**'], require: [], stateDir: state, env: testEnv({ HOME: home }), nodePath: process.execPath, hookBundle: HOOK });
    if (!r.ok) throw new Error(r.reason);
    expect(pre(writeTool(gitconfig, '[core]\n\tfsmonitor = ./x\n')).status).toBe(2);
    // As a `python -c` would: nothing at PreToolUse sees it.
    appendFileSync(gitconfig, '[core]\n\tfsmonitor = ./src/x\n');
    const stop = runRenderedHook(root, 'Stop', { hook_event_name: 'Stop', cwd: root, last_assistant_message: 'done', stop_hook_active: false });
    expect(stop.status).toBe(2);
    expect(stop.stderr).toContain(`modified: ${gitconfig}`);
    expect(stop.stderr).toContain('fsmonitor = ./src/x');
    expect(pre(writeTool(gitconfig, '[user]\n\tname = me\n')).status).toBe(0);
  });
});

describe('a session without an allowlist still protects the gate', () => {
  it('refuses the Write tool on the settings and the state folder', async () => {
    await start([]);
    expect(pre(writeTool(join(root, '.claude', 'settings.local.json'), '{}')).status).toBe(2);
    expect(pre(writeTool(join(root, '.git', 'hooks', 'pre-commit'), '#!/bin/sh')).status).toBe(2);
    expect(pre(writeTool(join(root, 'anything.txt'))).status).toBe(0);
  });
});
