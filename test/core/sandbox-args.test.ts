// The bubblewrap command line of a sandbox spec: the order of its mounts, and the folders that
// hold a read-only path inside a writable one bound onto themselves so they cannot be moved aside.
import { describe, expect, it } from 'vitest';
import { bwrapArgs, type SandboxSpec } from '../../src/core/sandbox.js';

function spec(over: Partial<SandboxSpec>): SandboxSpec {
  return {
    engine: 'bubblewrap',
    version: '0.8.0',
    bwrap: '/usr/bin/bwrap',
    network: 'host',
    writable: [],
    read_only: [],
    hidden_dirs: [],
    hidden_files: [],
    socket_dir: null,
    new_session: false,
    disable_userns: true,
    ...over,
  };
}

/** The mount arguments, as `[flag, path]` pairs, in order. */
function mounts(args: string[]): [string, string][] {
  const out: [string, string][] = [];
  args.forEach((a, i) => {
    if (a === '--bind-try' || a === '--ro-bind-try') out.push([a, args[i + 1] ?? '']);
  });
  return out;
}

describe('bwrapArgs', () => {
  it('binds every folder between a writable folder and a read-only path in it onto itself, before the read-only bind', () => {
    const args = bwrapArgs(spec({ writable: ['/w', '/home/u/.agent'], read_only: ['/w/.agent/hooks/settings.json', '/w/.git/config', '/home/u/.agent/config.toml'] }), '/w');
    expect(mounts(args)).toEqual([
      ['--bind-try', '/w'],
      ['--bind-try', '/w/.agent'],
      ['--bind-try', '/w/.git'],
      ['--bind-try', '/home/u/.agent'],
      ['--bind-try', '/w/.agent/hooks'],
      ['--ro-bind-try', '/w/.git/config'],
      ['--ro-bind-try', '/w/.agent/hooks/settings.json'],
      ['--ro-bind-try', '/home/u/.agent/config.toml'],
    ]);
  });

  it('binds the folders above a hidden state folder inside a writable worktree too, so the state cannot be moved aside', () => {
    const args = bwrapArgs(spec({ writable: ['/w'], hidden_dirs: ['/w/.cache/gh/state'] }), '/w');
    expect(mounts(args)).toEqual([
      ['--bind-try', '/w'],
      ['--bind-try', '/w/.cache'],
      ['--bind-try', '/w/.cache/gh'],
    ]);
    expect(args.slice(args.indexOf('--tmpfs', args.indexOf('/w/.cache/gh')), args.indexOf('--tmpfs', args.indexOf('/w/.cache/gh')) + 2)).toEqual(['--tmpfs', '/w/.cache/gh/state']);
  });

  it('adds nothing for a read-only path outside every writable folder', () => {
    const args = bwrapArgs(spec({ writable: ['/w/src'], read_only: ['/w', '/opt/tool/dist'] }), '/w');
    expect(mounts(args)).toEqual([
      ['--ro-bind-try', '/w'],
      ['--bind-try', '/w/src'],
      ['--ro-bind-try', '/opt/tool/dist'],
    ]);
  });

  it('shows links and files again inside a hidden folder, and makes that folder read-only only after them', () => {
    const args = bwrapArgs(spec({ hidden_dirs: ['/run', '/home/u/.state'], read_only: ['/run/resolve/resolv.conf'], symlinks: [['/dev/shm', '/run/shm']] }), '/w');
    const at = (...seq: string[]): number => args.findIndex((_, i) => seq.every((x, j) => args[i + j] === x));
    expect(at('--tmpfs', '/run')).toBeGreaterThan(-1);
    expect(at('--tmpfs', '/run', '--remount-ro', '/run')).toBe(-1);
    expect(at('--tmpfs', '/home/u/.state', '--remount-ro', '/home/u/.state')).toBeGreaterThan(-1);
    expect(at('--ro-bind-try', '/run/resolve/resolv.conf')).toBeGreaterThan(at('--tmpfs', '/run'));
    expect(at('--symlink', '/dev/shm', '/run/shm')).toBeGreaterThan(at('--tmpfs', '/run'));
    expect(at('--remount-ro', '/run')).toBeGreaterThan(Math.max(at('--ro-bind-try', '/run/resolve/resolv.conf'), at('--symlink', '/dev/shm', '/run/shm')));
  });
});
