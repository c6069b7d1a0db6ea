// The bwrap command line a sandbox spec becomes: launcher options that change how it starts.
import { describe, expect, it } from 'vitest';
import { bwrapArgs, sandboxedArgv, type SandboxSpec } from '../../src/core/sandbox.js';

const SPEC: SandboxSpec = { engine: 'bubblewrap', version: '0.8.0', bwrap: '/usr/bin/bwrap', network: 'none', writable: ['/src/app'], read_only: [], hidden_dirs: [], hidden_files: [], socket_dir: null, new_session: true, disable_userns: true };

describe('bwrapArgs', () => {
  it('ends the sandbox with its parent only when the launcher asks', () => {
    expect(bwrapArgs(SPEC, '/src/app')).not.toContain('--die-with-parent');
    const args = bwrapArgs(SPEC, '/src/app', { dieWithParent: true });
    expect(args.filter((a) => a === '--die-with-parent')).toHaveLength(1);
    // An option of bwrap itself: before the mounts and the program.
    expect(args.indexOf('--die-with-parent')).toBeLessThan(args.indexOf('--ro-bind'));
  });

  it('puts the program after -- in the full argv', () => {
    const argv = sandboxedArgv(SPEC, '/src/app', ['claude', '-p', 'hi'], { dieWithParent: true });
    expect(argv[0]).toBe('/usr/bin/bwrap');
    expect(argv.slice(-4)).toEqual(['--', 'claude', '-p', 'hi']);
    expect(argv).toContain('--die-with-parent');
  });
});
