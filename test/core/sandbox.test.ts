import { describe, expect, it } from 'vitest';
import { bwrapArgs, folderShapedDirs, sandboxedArgv, sandboxRecord, sandboxWrap, type SandboxSpec } from '../../src/core/sandbox.js';

const spec = (over: Partial<SandboxSpec> = {}): SandboxSpec => ({
  engine: 'bubblewrap',
  version: '0.8.0',
  bwrap: '/usr/bin/bwrap',
  network: 'host',
  writable: ['/w/src', '/home/u/.claude'],
  read_only: ['/w', '/w/.git/config', '/home/u/.claude/settings.json'],
  hidden_dirs: ['/home/u/.local/state/gatehouse'],
  hidden_files: [],
  socket_dir: '/tmp/gatehouse-x',
  new_session: true,
  disable_userns: true,
  ...over,
});

/** The mount target of each bind/tmpfs in order. */
function mountOrder(args: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--bind-try' || a === '--ro-bind-try' || a === '--ro-bind') {
      out.push(`${a} ${args[i + 2]}`);
      i += 2;
    } else if (a === '--tmpfs') {
      out.push(`${a} ${args[i + 1]}`);
      i++;
    }
  }
  return out;
}

describe('bwrapArgs', () => {
  it('binds / read-only first, then a private /tmp, then mounts from the shallowest to the deepest', () => {
    const order = mountOrder(bwrapArgs(spec(), '/w'));
    expect(order.slice(0, 2)).toEqual(['--ro-bind /', '--tmpfs /tmp']);
    // The worktree read-only (depth 1) lies under its writable src (depth 2), which lies under the read-only .git/config (depth 3).
    expect(order.indexOf('--ro-bind-try /w')).toBeLessThan(order.indexOf('--bind-try /w/src'));
    expect(order.indexOf('--bind-try /home/u/.claude')).toBeLessThan(order.indexOf('--ro-bind-try /home/u/.claude/settings.json'));
    expect(order).toContain('--tmpfs /home/u/.local/state/gatehouse');
  });

  it('puts a read-only path on top of a writable one at the same place, and a hidden one on top of both', () => {
    const order = mountOrder(bwrapArgs(spec({ writable: ['/a'], read_only: ['/a'], hidden_dirs: ['/a'] }), '/a'));
    expect(order.filter((m) => m.endsWith(' /a'))).toEqual(['--bind-try /a', '--ro-bind-try /a', '--tmpfs /a']);
  });

  it('hides a folder with an empty read-only tmpfs and a file with /dev/null', () => {
    const args = bwrapArgs(spec({ hidden_dirs: ['/s'], hidden_files: ['/f'] }), '/w');
    const i = args.indexOf('/s');
    expect(args.slice(i - 1, i + 3)).toEqual(['--tmpfs', '/s', '--remount-ro', '/s']);
    const j = args.lastIndexOf('/f');
    expect(args.slice(j - 2, j + 1)).toEqual(['--ro-bind', '/dev/null', '/f']);
  });

  it('shows the socket folder in /dev and then makes /dev read-only, keeping /dev/shm writable', () => {
    const args = bwrapArgs(spec(), '/w');
    const at = args.indexOf('/dev/gatehouse');
    expect(args.slice(at - 2, at + 1)).toEqual(['--ro-bind', '/tmp/gatehouse-x', '/dev/gatehouse']);
    expect(args.indexOf('--remount-ro', at)).toBeGreaterThan(args.indexOf('/dev/shm'));
    expect(args.slice(-2)).toEqual(['--chdir', '/w']);
  });

  it('leaves the socket out for checks, and unshares the network only for `none`', () => {
    expect(bwrapArgs(spec({ socket_dir: null }), '/w')).not.toContain('/dev/gatehouse');
    expect(bwrapArgs(spec(), '/w')).not.toContain('--unshare-net');
    expect(bwrapArgs(spec({ network: 'none' }), '/w')).toContain('--unshare-net');
  });

  it('unshares the user, pid, ipc and uts namespaces, and asks for no user namespaces inside when bwrap can', () => {
    const args = bwrapArgs(spec(), '/w');
    for (const f of ['--unshare-user', '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--disable-userns', '--new-session']) expect(args).toContain(f);
    const old = bwrapArgs(spec({ disable_userns: false, new_session: false }), '/w');
    expect(old).not.toContain('--disable-userns');
    expect(old).not.toContain('--new-session');
  });

  it('ends the sandbox with its parent only when the launcher asks', () => {
    expect(bwrapArgs(spec(), '/w')).not.toContain('--die-with-parent');
    const args = bwrapArgs(spec(), '/w', { dieWithParent: true });
    expect(args.filter((a) => a === '--die-with-parent')).toHaveLength(1);
    // An option of bwrap itself: before the mounts and the program.
    expect(args.indexOf('--die-with-parent')).toBeLessThan(args.indexOf('--ro-bind'));
    expect(sandboxedArgv(spec(), '/w', ['claude'], { dieWithParent: true })).toContain('--die-with-parent');
  });

  it('sets TMPDIR to the private /tmp', () => {
    const args = bwrapArgs(spec(), '/w');
    const i = args.indexOf('--setenv');
    expect(args.slice(i, i + 3)).toEqual(['--setenv', 'TMPDIR', '/tmp']);
  });
});

describe('sandboxedArgv and sandboxWrap', () => {
  it('runs the program after --', () => {
    const argv = sandboxedArgv(spec(), '/w', ['npm', 'test']);
    expect(argv[0]).toBe('/usr/bin/bwrap');
    expect(argv.slice(-3)).toEqual(['--', 'npm', 'test']);
  });

  it('wraps checks of a sandboxed session in its sandbox without the socket, and leaves others alone', () => {
    expect(sandboxWrap({ worktree: '/w', sandbox: null })).toBeUndefined();
    expect(sandboxWrap({ worktree: '/w' })).toBeUndefined();
    const wrap = sandboxWrap({ worktree: '/w', sandbox: spec() })!;
    const argv = wrap(['sh', '-c', 'npm test']);
    expect(argv.slice(-4)).toEqual(['--', 'sh', '-c', 'npm test']);
    expect(argv).not.toContain('/dev/gatehouse');
    expect(argv).toContain('/home/u/.local/state/gatehouse');
  });

  it('records the engine, version, network and writable paths', () => {
    expect(sandboxRecord(spec())).toEqual({ engine: 'bubblewrap', version: '0.8.0', network: 'host', writable: ['/w/src', '/home/u/.claude'] });
  });
});

describe('folderShapedDirs', () => {
  it('names the folders when every pattern is a whole folder', () => {
    expect(folderShapedDirs(['src/**', 'test/', 'docs/**/*', './lib/**'])).toEqual(['docs', 'lib', 'src', 'test']);
    expect(folderShapedDirs(['packages/a/src/**'])).toEqual(['packages/a/src']);
  });

  it('drops a folder inside another named one', () => {
    expect(folderShapedDirs(['src/**', 'src/lib/**'])).toEqual(['src']);
  });

  it('is null when one pattern is not folder-shaped, or there is none', () => {
    for (const allow of [[], ['src/**', '*.md'], ['src/*.ts'], ['**'], ['**/*'], ['src/*/x/**'], ['src/{a,b}/**'], ['../x/**'], ['a/../b/**'], ['README.md']]) {
      expect(folderShapedDirs(allow), JSON.stringify(allow)).toBeNull();
    }
  });
});
