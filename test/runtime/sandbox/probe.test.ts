// Finding the sandbox: a clear refusal, with what to install, wherever it cannot be made.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseBwrapVersion, probeSandbox, versionAtLeast } from '../../../src/runtime/sandbox/probe.js';
import { findOnPath } from '../../../src/runtime/find-on-path.js';
import { tempDir } from '../../support/cli.js';

/** A PATH with only the named programs of this machine (linked), so others are missing. */
function pathWith(names: string[], extra: Record<string, string> = {}): string {
  const dir = join(tempDir(), 'bin');
  mkdirSync(dir);
  for (const n of names) {
    const real = findOnPath(n, process.env);
    if (real !== null) symlinkSync(real, join(dir, n));
  }
  for (const [n, body] of Object.entries(extra)) writeFileSync(join(dir, n), body, { mode: 0o755 });
  return dir;
}

describe('probeSandbox', () => {
  it('refuses on macOS and elsewhere, saying nothing was started', () => {
    const mac = probeSandbox(process.env, 'darwin');
    expect(mac.ok).toBe(false);
    if (!mac.ok) expect(mac.reason).toMatch(/macOS.*not supported.*Nothing was started/);
    const win = probeSandbox(process.env, 'win32');
    expect(win.ok).toBe(false);
  });

  it('refuses without bwrap, saying what to install', () => {
    const r = probeSandbox({ ...process.env, PATH: pathWith(['perl']) }, 'linux');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(/bubblewrap.*apt-get install bubblewrap.*Nothing was started/);
  });

  it('refuses without perl, which runs the hook client inside', () => {
    // A bwrap that only reports its version: the machine need not have one for this refusal.
    const bwrap = '#!/bin/sh\necho "bubblewrap 0.8.0"\n';
    const r = probeSandbox({ ...process.env, PATH: pathWith([], { bwrap }) }, 'linux');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(/perl/);
  });

  it('refuses when a trial sandbox cannot start, with how to enable user namespaces', () => {
    // A bwrap that reports a version but cannot make namespaces, as on a host with them off.
    const fake = '#!/bin/sh\nif [ "$1" = --version ]; then echo "bubblewrap 0.8.0"; exit 0; fi\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n';
    const r = probeSandbox({ ...process.env, PATH: pathWith(['perl'], { bwrap: fake }) }, 'linux');
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.reason).toContain('No permissions to create new namespace');
      expect(r.reason).toContain('kernel.unprivileged_userns_clone');
    }
  });

  it('reads the version and whether bwrap can forbid user namespaces inside', () => {
    expect(parseBwrapVersion('bubblewrap 0.8.0\n')).toBe('0.8.0');
    expect(parseBwrapVersion('nonsense')).toBeNull();
    expect(versionAtLeast('0.8.0', '0.8.0')).toBe(true);
    expect(versionAtLeast('0.10.1', '0.8.0')).toBe(true);
    expect(versionAtLeast('0.7.9', '0.8.0')).toBe(false);
  });
});
