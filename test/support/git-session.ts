// A committed git repository with a Claude Code session on it (allowlist `src/**`, no required
// check), started in process with the real hook bundle: for tests that run its rendered hooks.
import { execFileSync } from 'node:child_process';
import { startSession } from '../../src/gate/session-lifecycle.js';
import { HOOK, testEnv } from './cli.js';

/** Commits everything in `root` as it is, then starts the session; returns its id. */
export async function startGitSession(root: string, state: string): Promise<string> {
  const git = (...args: string[]): void => void execFileSync('git', args, { cwd: root, stdio: 'ignore' });
  git('init', '-q');
  git('add', '-A');
  git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'base');
  const r = await startSession({ agent: 'claude', worktree: root, allow: ['src/**'], require: [], stateDir: state, env: testEnv(), nodePath: process.execPath, hookBundle: HOOK });
  if (!r.ok) throw new Error(r.reason);
  return r.value.policy.session_id;
}
