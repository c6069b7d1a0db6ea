// Where an agent's own folders are, read from the environment the agent runs with (the
// session's, which doctor and tests point at throwaway homes), never assumed from Gatehouse's.
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The agent's HOME: the session environment's, else Gatehouse's own. */
export function homeOf(env: NodeJS.ProcessEnv): string {
  return env['HOME'] || homedir();
}

/** An XDG base folder of the agent's environment, else its default under that HOME. */
export function xdgDir(env: NodeJS.ProcessEnv, name: 'XDG_CONFIG_HOME' | 'XDG_DATA_HOME' | 'XDG_STATE_HOME' | 'XDG_CACHE_HOME'): string {
  const fallback = { XDG_CONFIG_HOME: '.config', XDG_DATA_HOME: '.local/share', XDG_STATE_HOME: '.local/state', XDG_CACHE_HOME: '.cache' }[name];
  return env[name] || join(homeOf(env), fallback);
}
