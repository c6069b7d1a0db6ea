// `gatehouse --version` prints the version in package.json, the one place a release bumps it,
// reading the package.json beside the bundle wherever the package is installed.
import { execFileSync } from 'node:child_process';
import { cpSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gatehouse, tempDir } from '../support/cli.js';

describe('gatehouse --version', () => {
  it('prints the version package.json states', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    const ran = gatehouse(['--version'], { cwd: tempDir() });
    expect(ran.status).toBe(0);
    expect(ran.stdout.trim()).toBe(pkg.version);
  });

  it('reads the package.json of the installed copy it runs from', () => {
    const installed = tempDir();
    cpSync('dist', join(installed, 'dist'), { recursive: true, filter: (src) => !src.includes(join('dist', 'web')) });
    symlinkSync(resolve('node_modules'), join(installed, 'node_modules'));
    writeFileSync(join(installed, 'package.json'), JSON.stringify({ name: 'gatehouse-cli', version: '9.8.7-test', type: 'module' }));
    const printed = execFileSync(process.execPath, [join(installed, 'dist', 'cli.js'), '--version'], { cwd: tempDir(), encoding: 'utf8' });
    expect(printed.trim()).toBe('9.8.7-test');
  });
});
