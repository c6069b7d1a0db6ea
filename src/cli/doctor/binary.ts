// Finding an agent's installed binary and asking it its version.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findOnPath } from '../../runtime/find-on-path.js';
import { cachedAgentBinary } from '../../runtime/doctor/tested-agents.js';
import type { ProbeTarget } from '../../runtime/doctor/probes.js';

/** A `--version` that takes longer than this is reported as unknown rather than waited for. */
const VERSION_TIMEOUT_MS = 15_000;

/** Where an agent's binary was found: on PATH, in Gatehouse's agent cache (scripts/install-agents.mjs), or (a library) in the current project. */
export type FoundBinary = ProbeTarget;

/** The agent's program on PATH, else the pinned one in the agent cache, else null. */
export function findAgentBinary(agent: string, programs: readonly string[], env: NodeJS.ProcessEnv): FoundBinary | null {
  for (const program of programs) {
    const path = findOnPath(program, env);
    if (path !== null) return { path, from: 'path' };
  }
  const cached = cachedAgentBinary(agent, env);
  return cached === null ? null : { path: cached, from: 'cache' };
}

/**
 * The first `x.y.z` that `<bin> --version` prints, or null. It runs with a throwaway HOME, temp
 * and XDG folders (removed after) and only PATH and the locale of this environment: even asking
 * its version, an agent writes logs and caches (OpenCode does), and none may land in the user's.
 */
export function binaryVersion(bin: string): string | null {
  const home = mkdtempSync(join(tmpdir(), 'gatehouse-version-'));
  try {
    const env: NodeJS.ProcessEnv = {
      HOME: home,
      TMPDIR: home,
      XDG_CONFIG_HOME: join(home, 'config'),
      XDG_CACHE_HOME: join(home, 'cache'),
      XDG_DATA_HOME: join(home, 'data'),
      XDG_STATE_HOME: join(home, 'state'),
    };
    for (const name of ['PATH', 'LANG', 'LC_ALL', 'TZ']) if (process.env[name] !== undefined) env[name] = process.env[name];
    const r = spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: VERSION_TIMEOUT_MS, stdio: ['ignore', 'pipe', 'pipe'], env, cwd: home });
    return /\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]*[0-9A-Za-z])?/.exec(`${r.stdout ?? ''}\n${r.stderr ?? ''}`)?.[0] ?? null;
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
