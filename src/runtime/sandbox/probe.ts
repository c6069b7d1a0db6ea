// Can this machine sandbox a session? Finds bubblewrap and perl (the hook client inside),
// and starts one throwaway sandbox with the very flags a session uses, so a missing package
// or disabled user namespaces is a clear refusal before anything starts — never a fallback
// to running unsandboxed.
import { spawnSync } from 'node:child_process';
import { fail, ok, type Result } from '../../core/result.js';
import { findOnPath } from '../find-on-path.js';

/** What a working sandbox needs, found on this machine. */
export interface SandboxTools {
  bwrap: string;
  version: string;
  /** Absolute path of perl, which runs the hook client inside the sandbox. */
  perl: string;
  /** bwrap ≥ 0.8.0: `--disable-userns` keeps the agent from making user namespaces of its own. */
  disableUserns: boolean;
}

const INSTALL_BWRAP = 'install bubblewrap (Debian/Ubuntu: `sudo apt-get install bubblewrap`; Fedora: `sudo dnf install bubblewrap`; Arch: `sudo pacman -S bubblewrap`)';

/** Parses `bubblewrap 0.8.0` into `0.8.0`. */
export function parseBwrapVersion(text: string): string | null {
  return /bubblewrap\s+(\d+\.\d+(?:\.\d+)?)/.exec(text)?.[1] ?? null;
}

/** True when `version` is at least `min` (dotted numbers). */
export function versionAtLeast(version: string, min: string): boolean {
  const a = version.split('.').map(Number);
  const b = min.split('.').map(Number);
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d > 0;
  }
  return true;
}

/** Why bwrap could not make its namespaces, in words with what to change. */
function namespaceAdvice(stderr: string): string {
  const text = stderr.trim().split('\n').slice(-2).join(' ');
  return `bubblewrap cannot create a sandbox here (${text || 'no reason given'}). Unprivileged user namespaces are probably off: enable them (\`sudo sysctl -w kernel.unprivileged_userns_clone=1\`; on Ubuntu 24.04+ also \`sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0\` or an AppArmor profile for bwrap; in a container, run it with user namespaces allowed) and try again`;
}

/**
 * Finds and tries the sandbox. Refuses on anything but Linux, without bwrap or perl, and
 * when a trial sandbox cannot start.
 */
export function probeSandbox(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): Result<SandboxTools> {
  if (platform !== 'linux') {
    return fail(
      `a sandboxed session needs Linux with bubblewrap; ${platform === 'darwin' ? 'macOS (Seatbelt) is not supported yet' : `${platform} is not supported`}. Nothing was started: run on Linux, or without a sandbox (the agent then runs as your user)`,
    );
  }
  const bwrap = findOnPath('bwrap', env);
  if (bwrap === null) return fail(`a sandboxed session needs bubblewrap (bwrap), which is not on PATH: ${INSTALL_BWRAP}. Nothing was started`);
  const perl = findOnPath('perl', env);
  if (perl === null)
    return fail(
      'a sandboxed session needs perl, which runs the hook client inside the sandbox, and it is not on PATH: install perl (Debian/Ubuntu: `sudo apt-get install perl-base`). Nothing was started',
    );
  const v = spawnSync(bwrap, ['--version'], { encoding: 'utf8', timeout: 10_000 });
  const version = parseBwrapVersion(`${v.stdout ?? ''}`);
  if (version === null) return fail(`${bwrap} --version did not name a bubblewrap version (${(v.stderr ?? '').trim() || v.error?.message || 'no output'}): ${INSTALL_BWRAP}`);
  const disableUserns = versionAtLeast(version, '0.8.0');
  const flags = [
    '--unshare-user',
    '--unshare-pid',
    ...(disableUserns ? ['--disable-userns'] : []),
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--tmpfs',
    '/tmp',
    '--',
    perl,
    '-e',
    '0',
  ];
  const trial = spawnSync(bwrap, flags, { encoding: 'utf8', timeout: 10_000, env });
  if (trial.status !== 0) return fail(namespaceAdvice(`${trial.stderr ?? ''}${trial.error ? trial.error.message : ''}`));
  return ok({ bwrap, version, perl, disableUserns });
}
