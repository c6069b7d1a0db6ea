// `gatehouse run --sandbox` with real processes and the real bubblewrap: refused clearly when
// the sandbox cannot be made (never run unsandboxed), the config can ask for it, the checks
// run inside it, and the evidence says so.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { findOnPath } from '../../src/runtime/find-on-path.js';
import { gatehouse, tempDir } from '../support/cli.js';
import { auditEvents } from '../support/audit.js';

const canSandbox = spawnSync('bwrap', ['--unshare-user', '--ro-bind', '/', '/', 'true']).status === 0;

let base: string;
let root: string;
let state: string;
let home: string;
const at = (): string[] => ['--worktree', root, '--state-dir', state];

beforeEach(() => {
  base = tempDir('gh-run-sbx-');
  root = join(base, 'repo');
  state = join(base, 'state');
  home = join(base, 'home');
  mkdirSync(join(root, 'src'), { recursive: true });
  mkdirSync(home);
  spawnSync('git', ['init', '-q', root]);
  writeFileSync(join(root, 'README.md'), 'hello\n');
});

const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({ HOME: home, XDG_STATE_HOME: join(home, '.local', 'state'), ...extra });
const run = (args: string[], extra: NodeJS.ProcessEnv = {}) => gatehouse(['run', ...args], { cwd: root, env: env(extra) });
const sessions = (): string[] => (existsSync(join(state, 'sessions')) ? readdirSync(join(state, 'sessions')) : []);

/** A PATH holding only the named programs of this machine. */
function pathWith(names: string[]): string {
  const dir = join(tempDir(), 'bin');
  mkdirSync(dir);
  for (const n of names) {
    const real = findOnPath(n, process.env);
    if (real !== null) symlinkSync(real, join(dir, n));
  }
  return dir;
}

describe('gatehouse run --sandbox refuses, never runs unsandboxed', () => {
  it('without bubblewrap: says what to install, starts no session and runs nothing', () => {
    const r = run(['--sandbox', '--agent', 'none', ...at(), '--', 'sh', '-c', 'touch ran'], { PATH: pathWith(['sh', 'perl', 'git', 'touch']) });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('apt-get install bubblewrap');
    expect(existsSync(join(root, 'ran'))).toBe(false);
    expect(sessions()).toEqual([]);
  });

  it('when the config asks for it: refuses the same way without --sandbox', () => {
    writeFileSync(join(root, 'gatehouse.yaml'), 'sandbox: true\n');
    const r = run(['--agent', 'none', ...at(), '--', 'sh', '-c', 'touch ran'], { PATH: pathWith(['sh', 'perl', 'git', 'touch']) });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('bubblewrap');
    expect(existsSync(join(root, 'ran'))).toBe(false);
  });

  it('`session start` cannot sandbox an agent it does not start: a config that asks is refused, naming `gatehouse run`', () => {
    writeFileSync(join(root, 'gatehouse.yaml'), 'sandbox:\n  enabled: true\n');
    const r = gatehouse(['session', 'start', '--agent', 'claude', ...at()], { env: env() });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('gatehouse run');
    expect(sessions()).toEqual([]);
  });

  it('checks its flags: a bad --network, --network without a sandbox, --transport with one', () => {
    expect(run(['--sandbox', '--network', 'lan', '--agent', 'none', ...at(), '--', 'true']).status).toBe(2);
    const alone = run(['--network', 'none', '--agent', 'none', ...at(), '--', 'true']);
    expect(alone.status).toBe(1);
    expect(alone.stderr).toContain('--network applies to a sandboxed session');
    const warm = run(['--sandbox', '--transport', 'warm', '--agent', 'none', ...at(), '--', 'true']);
    expect(warm.stderr).toContain('does not apply to a sandboxed session');
    expect(sessions()).toEqual([]);
  });

  it('names a typo in the config section', () => {
    writeFileSync(join(root, 'gatehouse.yaml'), 'sandbox:\n  enabeld: true\n');
    const r = run(['--agent', 'none', ...at(), '--', 'true']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/gatehouse\.yaml:2.*enabeld.*did you mean `enabled`/);
    writeFileSync(join(root, 'gatehouse.yaml'), 'sandbox:\n  hide: ["../secrets"]\n');
    const bad = run(['--agent', 'none', ...at(), '--', 'true']);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/sandbox\.hide\[0\].*without `\.\.`/);
  });
});

describe.skipIf(!canSandbox)('gatehouse run --sandbox', () => {
  it('runs the command inside: the state is invisible, the rest of the worktree read-only under a folder-shaped allowlist', () => {
    const r = run(['--sandbox', '--agent', 'none', ...at(), '--allow', 'src/**', '--', 'sh', '-c', `echo x > src/ok.ts; echo y > README.md; echo state:; ls -A ${state} 2>&1; echo end`]);
    expect(r.stderr).toContain('Read-only file system');
    // The state folder (audit, sessions, keys) shows nothing inside.
    expect(r.stdout).toMatch(/state:\n(ls: .*No such file or directory\n)?end/);
    expect(readFileSync(join(root, 'README.md'), 'utf8')).toBe('hello\n');
    expect(readFileSync(join(root, 'src', 'ok.ts'), 'utf8')).toBe('x\n');
    expect(r.stderr).toContain('PASSED');
    expect(r.status).toBe(0);
  });

  it('runs the required checks inside too: a check cannot read the key', () => {
    gatehouse(['keys', 'show', ...at()], { env: env() });
    const key = join(state, 'keys', 'ed25519.key.pem');
    expect(existsSync(key)).toBe(true);
    const r = run(['--sandbox', '--agent', 'none', ...at(), '--require', `steal=cat ${key}`, '--', 'true']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('No such file or directory');
    expect(r.stderr).not.toContain('PRIVATE KEY');
  });

  it('takes the sandbox from the config, network included', () => {
    writeFileSync(join(root, 'gatehouse.yaml'), 'sandbox:\n  enabled: true\n  network: none\n');
    const r = run(['--agent', 'none', ...at(), '--', 'sh', '-c', 'grep -c : /proc/net/dev']);
    expect(r.status).toBe(0);
    // Only the loopback interface: no network.
    expect(r.stdout.trim()).toBe('1');
    const json = run(['--json', '--agent', 'none', ...at(), '--', 'true']);
    expect(JSON.parse(json.stdout)).toMatchObject({ passed: true, sandbox: { engine: 'bubblewrap', network: 'none' } });
    expect(r.stderr).toContain('network none');
  });

  it("keeps the secrets of scoped tokens out of the agent's environment", () => {
    writeFileSync(join(root, 'gatehouse.yaml'), 'approvals:\n  tokens:\n    - principal: ci\n      scopes: [approvals:read]\n      env: GH_TEST_CI_TOKEN\n');
    const r = run(['--sandbox', '--agent', 'none', ...at(), '--', 'sh', '-c', 'echo "token=[$GH_TEST_CI_TOKEN]"'], { GH_TEST_CI_TOKEN: 'a-long-enough-secret-value-1234567890' });
    expect(r.stdout).toContain('token=[]');
  });

  it('records the sandbox in session_started and the evidence, which --require-sandbox accepts', () => {
    const r = run(['--sandbox', '--agent', 'none', ...at(), '--allow', 'src/**', '--', 'true']);
    expect(r.status).toBe(0);
    const started = auditEvents(state).find((e) => e.type === 'session_started')!;
    expect(started.data).toMatchObject({ sandboxed: true, sandbox: { engine: 'bubblewrap', network: 'host', writable: expect.arrayContaining([join(root, 'src')]) } });
    const pub = join(base, 'pub.pem');
    writeFileSync(pub, JSON.parse(gatehouse(['keys', 'show', '--json', ...at()]).stdout).public_key_pem);
    const list = JSON.parse(gatehouse(['evidence', 'list', '--json', ...at()]).stdout) as { id: string }[];
    expect(list.length).toBeGreaterThan(0);
    const v = gatehouse(['evidence', 'verify', list.at(-1)!.id, '--key', pub, '--require-sandbox', ...at()]);
    expect(v.status).toBe(0);
    expect(v.stdout).toMatch(/sandboxed: bubblewrap [\d.]+, network host/);
    const shown = gatehouse(['session', 'show', started.session_id!, ...at()]);
    expect(shown.stdout).toMatch(/sandbox: {2}bubblewrap [\d.]+, network host, writable .*\/src/);
  });

  it('fails a session whose agent planted .git/commondir, and moves the file into the session folder so that git cannot follow it', () => {
    const r = run(['--sandbox', '--agent', 'none', ...at(), '--allow', 'src/**', '--', 'sh', '-c', 'mkdir -p src/evil/hooks && echo ../src/evil > .git/commondir']);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('.git/commondir');
    expect(r.stderr).toMatch(/moved .*\.git\/commondir, which the agent made in the sandbox, to .*quarantine\/commondir/);
    expect(existsSync(join(root, '.git', 'commondir'))).toBe(false);
    const [id] = sessions();
    expect(readFileSync(join(state, 'sessions', id!, 'quarantine', 'commondir'), 'utf8')).toBe('../src/evil\n');
    expect(spawnSync('git', ['status'], { cwd: root }).status).toBe(0);
  });

  it('a command that is not there is NOT RUN, as without the sandbox', () => {
    const r = run(['--sandbox', '--agent', 'none', ...at(), '--', 'no-such-agent-xyz']);
    expect(r.status).toBe(127);
    expect(r.stderr).toContain('NOT RUN');
  });
});

describe('evidence verify --require-sandbox', () => {
  it('refuses, with exit 3, a verified bundle from an unsandboxed session', () => {
    const r = run(['--agent', 'none', ...at(), '--allow', 'src/**', '--', 'true']);
    expect(r.status).toBe(0);
    const pub = join(base, 'pub.pem');
    writeFileSync(pub, JSON.parse(gatehouse(['keys', 'show', '--json', ...at()]).stdout).public_key_pem);
    const id = (JSON.parse(gatehouse(['evidence', 'list', '--json', ...at()]).stdout) as { id: string }[]).at(-1)!.id;
    expect(gatehouse(['evidence', 'verify', id, '--key', pub, ...at()]).status).toBe(0);
    const v = gatehouse(['evidence', 'verify', id, '--key', pub, '--require-sandbox', ...at()]);
    expect(v.status).toBe(3);
    expect(v.stdout).toContain('NOT SANDBOXED');
  });
});
