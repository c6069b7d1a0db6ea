// What a sandbox hides of this machine's services: all of /run (with its links shown again),
// a separate /var/run, the runtime folder, and container engines' socket folders under HOME.
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hostServices } from '../../../src/runtime/sandbox/host-services.js';
import { tempDir } from '../../support/cli.js';

describe('hostServices', () => {
  it('hides the run folder and keeps its links, but not its folders, to show again', () => {
    const base = tempDir();
    const run = join(base, 'run');
    mkdirSync(join(run, 'user', '1000'), { recursive: true });
    writeFileSync(join(run, 'docker.sock'), '');
    symlinkSync('/dev/shm', join(run, 'shm'));
    symlinkSync('/nix/store/abc-system', join(run, 'current-system'));
    const s = hostServices({}, join(base, 'home'), run);
    expect(s.hiddenDirs).toContain(run);
    expect(s.symlinks.sort()).toEqual(
      [
        ['/dev/shm', join(run, 'shm')],
        ['/nix/store/abc-system', join(run, 'current-system')],
      ].sort(),
    );
  });

  it("hides a container engine's socket folder under HOME and the runtime folder, and nothing that is not there", () => {
    const base = tempDir();
    const home = join(base, 'home');
    mkdirSync(join(home, '.docker', 'desktop'), { recursive: true });
    mkdirSync(join(home, '.colima'), { recursive: true });
    mkdirSync(join(base, 'runtime'), { recursive: true });
    const s = hostServices({ XDG_RUNTIME_DIR: join(base, 'runtime') }, home, join(base, 'no-run'));
    expect(s.hiddenDirs).toEqual(expect.arrayContaining([realpathSync(join(home, '.docker', 'desktop')), realpathSync(join(home, '.colima')), realpathSync(join(base, 'runtime'))]));
    expect(s.hiddenDirs).not.toContain(join(home, '.rd'));
    expect(s.hiddenDirs).not.toContain(join(base, 'no-run'));
    expect(s.symlinks).toEqual([]);
  });
});
