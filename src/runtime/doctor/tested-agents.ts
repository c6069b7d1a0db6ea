// The agent versions Gatehouse is tested with, in one place: scripts/install-agents.mjs installs
// exactly these into the agent cache, the end-to-end tests run them, and `doctor` compares against them.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import TESTED from './tested-agents.json' with { type: 'json' };

/** One pinned agent package: its Gatehouse agent name, npm package, version and binary inside the install folder. */
export interface TestedAgent {
  agent: string;
  /** The cache folder's stem (`<name>@<version>`). */
  name: string;
  pkg: string;
  version: string;
  /** The executable, relative to the install folder; absent for a library. */
  bin?: string;
}

const AGENTS: readonly TestedAgent[] = TESTED;

/** The pinned package of `agent`, or undefined when Gatehouse pins none for it (e.g. Cursor). */
export function testedAgent(agent: string): TestedAgent | undefined {
  return AGENTS.find((a) => a.agent === agent);
}

/** The agent cache: `$GATEHOUSE_AGENT_CACHE`, else `~/.cache/gatehouse-agents`. */
export function agentCacheDir(env: NodeJS.ProcessEnv): string {
  return env['GATEHOUSE_AGENT_CACHE'] || join(homedir(), '.cache', 'gatehouse-agents');
}

/**
 * The pinned binary of `agent` in the agent cache, or null if it is not installed there.
 * @example cachedAgentBinary('codex') // '/root/.cache/gatehouse-agents/codex-cli@0.171.0/…/codex'
 */
export function cachedAgentBinary(agent: string, env: NodeJS.ProcessEnv = process.env): string | null {
  const tested = testedAgent(agent);
  if (tested?.bin === undefined) return null;
  const path = join(agentCacheDir(env), `${tested.name}@${tested.version}`, tested.bin);
  return existsSync(path) ? path : null;
}
