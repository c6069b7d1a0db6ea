// Spawn requests checked before any process starts: the child's environment, the program
// lookup, and the cwd and geometry bounds, on real folders and files.
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkGeometry, prepareLaunch } from '../../../src/gateway/pty/launch.js';
import { makeTemp } from './support.js';

let temp: ReturnType<typeof makeTemp>;

beforeEach(() => {
  temp = makeTemp();
});

afterEach(() => temp.cleanup());

describe('prepareLaunch', () => {
  it('defaults to $SHELL at 80x24 with TERM=xterm-256color, dropping the server terminal size', () => {
    const base = { PATH: '/usr/bin:/bin', SHELL: '/bin/sh', TERM: 'screen', COLUMNS: '200', LINES: '50' };
    const r = prepareLaunch({ cwd: temp.project }, temp.project, base);
    if (!r.ok) throw new Error(r.reason);
    expect(r.value).toMatchObject({ command: '/bin/sh', file: '/bin/sh', args: [], cwd: temp.project, rows: 24, cols: 80 });
    expect(r.value.env).toEqual({ PATH: '/usr/bin:/bin', SHELL: '/bin/sh', TERM: 'xterm-256color' });
  });

  it('falls back to /bin/sh without $SHELL and lets the spec env override anything', () => {
    const r = prepareLaunch({ cwd: '.', env: { TERM: 'dumb', EXTRA: '1' } }, temp.project, { PATH: '/bin' });
    if (!r.ok) throw new Error(r.reason);
    expect(r.value.command).toBe('/bin/sh');
    expect(r.value.env).toEqual({ PATH: '/bin', TERM: 'dumb', EXTRA: '1' });
  });

  it('removes the names it is told to unset, whether inherited or given, after the merge', () => {
    const r = prepareLaunch({ cwd: '.', env: { GIVEN: 'x', KEEP: '1' }, unsetEnv: ['CI_TOKEN', 'GIVEN'] }, temp.project, { PATH: '/bin', CI_TOKEN: 'secret' });
    if (!r.ok) throw new Error(r.reason);
    expect(r.value.env).toEqual({ PATH: '/bin', TERM: 'xterm-256color', KEEP: '1' });
  });

  it('reports the command line it is told to show, and runs the real one', () => {
    const r = prepareLaunch({ cwd: '.', command: '/bin/sh', args: ['-c', 'exit 0'], shown: ['claude', '-p', 'hi'] }, temp.project, { PATH: '/bin' });
    if (!r.ok) throw new Error(r.reason);
    expect(r.value).toMatchObject({ file: '/bin/sh', args: ['-c', 'exit 0'], shown: ['claude', '-p', 'hi'] });
    const plain = prepareLaunch({ cwd: '.', command: '/bin/sh', args: ['-l'] }, temp.project, { PATH: '/bin' });
    expect(plain.ok && plain.value.shown).toEqual(['/bin/sh', '-l']);
  });

  it('finds a bare command on the child PATH, and a relative path from the cwd', () => {
    const bin = join(temp.project, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'tool'), '#!/bin/sh\n');
    chmodSync(join(bin, 'tool'), 0o755);
    const onPath = prepareLaunch({ cwd: temp.project, command: 'tool', env: { PATH: bin } }, temp.project, {});
    expect(onPath).toMatchObject({ ok: true, value: { command: 'tool', file: join(bin, 'tool') } });
    const relative = prepareLaunch({ cwd: temp.project, command: './bin/tool' }, temp.project, {});
    expect(relative).toMatchObject({ ok: true, value: { file: join(bin, 'tool') } });
  });

  it('refuses a command that is missing or not executable, naming the next step', () => {
    writeFileSync(join(temp.project, 'plain.txt'), 'x');
    const missing = prepareLaunch({ cwd: temp.project, command: 'no-such-tool-xyz' }, temp.project, { PATH: '/usr/bin:/bin' });
    expect(missing).toMatchObject({ ok: false, reason: expect.stringMatching(/command not found.*absolute path/) });
    expect(prepareLaunch({ cwd: temp.project, command: './plain.txt' }, temp.project, {}).ok).toBe(false);
    expect(prepareLaunch({ cwd: temp.project, command: '' }, temp.project, {}).ok).toBe(false);
  });

  it('refuses a cwd outside the project, directly, by .., or through a symlink', () => {
    symlinkSync(temp.base, join(temp.project, 'up'));
    for (const cwd of [temp.base, '..', join(temp.project, 'up'), '/']) {
      expect(prepareLaunch({ cwd, command: '/bin/sh' }, temp.project, {})).toMatchObject({
        ok: false,
        reason: expect.stringMatching(/outside the project/),
      });
    }
  });

  it('refuses a cwd that is a file or does not exist', () => {
    writeFileSync(join(temp.project, 'f'), '');
    expect(prepareLaunch({ cwd: 'f', command: '/bin/sh' }, temp.project, {})).toMatchObject({ ok: false, reason: expect.stringMatching(/not a folder/) });
    expect(prepareLaunch({ cwd: 'nope', command: '/bin/sh' }, temp.project, {}).ok).toBe(false);
  });
});

describe('checkGeometry', () => {
  it('accepts 1..1000 whole numbers and refuses 0, 1001, fractions and NaN', () => {
    expect(checkGeometry(1, 1).ok).toBe(true);
    expect(checkGeometry(1000, 1000).ok).toBe(true);
    for (const [cols, rows] of [
      [0, 24],
      [80, 0],
      [1001, 24],
      [80, 1001],
      [80.5, 24],
      [Number.NaN, 24],
      [-1, 24],
    ] as const) {
      expect(checkGeometry(cols, rows).ok).toBe(false);
    }
  });
});
