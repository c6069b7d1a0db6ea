// `session start` warns, in one line, when the agent on PATH is not a version Gatehouse is tested
// with. Asking a binary its version costs 100 ms to a second, so the answer is cached by the
// binary's path, size and mtime in `<state base>/doctor/versions.json`.
import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { agentPrograms } from '../../adapters/agent-programs.js';
import { writeFileAtomic } from '../../runtime/fs-atomic.js';
import { findOnPath } from '../../runtime/find-on-path.js';
import { testedAgent } from '../../runtime/doctor/tested-agents.js';
import { binaryVersion } from './binary.js';
import { readSmallJson } from '../../runtime/small-file.js';

/** One cached answer: the binary as it was when asked, and what it said. */
interface CachedVersion {
  size: number;
  mtime_ms: number;
  version: string | null;
}

/** The cache is a line per binary; past this it is not ours and is started afresh. */
const MAX_CACHE_BYTES = 64 * 1024;

/** The cache, read as a file the agent may have replaced (a FIFO, a link, a huge file): then empty. */
function readCache(file: string): Record<string, CachedVersion> {
  return (readSmallJson(file, MAX_CACHE_BYTES) ?? {}) as Record<string, CachedVersion>;
}

/** The version of `bin`, from the cache when the file is unchanged, else asked (and cached). */
function cachedVersion(bin: string, base: string): string | null {
  const st = statSync(bin);
  const file = join(base, 'doctor', 'versions.json');
  const cache = readCache(file);
  const hit = cache[bin];
  if (hit !== undefined && hit.size === st.size && hit.mtime_ms === st.mtimeMs) return hit.version ?? null;
  const version = binaryVersion(bin);
  try {
    mkdirSync(join(base, 'doctor'), { recursive: true });
    writeFileAtomic(file, `${JSON.stringify({ ...cache, [bin]: { size: st.size, mtime_ms: st.mtimeMs, version } }, null, 2)}\n`, { noSync: true });
  } catch {
    // A cache that cannot be written only costs the next start another --version.
  }
  return version;
}

/**
 * The warning for `agent`'s binary on PATH when its version is not the tested one, else null (no
 * binary on PATH, no pinned version, or the tested one). Never throws: a warning must not stop a start.
 * @example versionWarning('codex', process.env, base) // 'codex 0.170.0 (/usr/bin/codex) is not … 0.171.0 …'
 */
export function versionWarning(agent: string, env: NodeJS.ProcessEnv, base: string): string | null {
  const tested = testedAgent(agent);
  if (tested === undefined) return null;
  const programs = agentPrograms().find((a) => a.agent === agent)?.programs ?? [];
  try {
    for (const program of programs) {
      const bin = findOnPath(program, env);
      if (bin === null) continue;
      const version = cachedVersion(bin, base);
      if (version === tested.version) return null;
      const said = version === null ? 'did not say its version' : `is version ${version}`;
      return `${program} at ${bin} ${said}, not the ${tested.version} Gatehouse is tested with: run \`gatehouse doctor --agent ${agent}\` to check that its hooks fire`;
    }
  } catch {
    return null;
  }
  return null;
}
