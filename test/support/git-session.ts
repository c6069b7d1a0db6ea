// Claude Code sessions started in process with the real hook bundle, for tests that run its
// rendered hooks: on a folder as it is, or on a committed git repository of it.
import { execFileSync } from 'node:child_process';
import { startSession, type StartedSession, type StartOptions } from '../../src/gate/session-lifecycle.js';
import { HOOK, testEnv } from './cli.js';

/**
 * Starts a Claude Code session on `root` with its state in `state`: allowlist `src/**` and no
 * required check unless `opts` says otherwise, the run's state home (plus `home` as HOME when
 * given). Throws when the start is refused.
 */
export async function startTestSession(root: string, state: string, opts: Partial<StartOptions> & { home?: string } = {}): Promise<StartedSession> {
  const { home, ...rest } = opts;
  const r = await startSession({
    agent: 'claude',
    worktree: root,
    allow: ['src/**'],
    require: [],
    stateDir: state,
    env: testEnv(home === undefined ? {} : { HOME: home }),
    nodePath: process.execPath,
    hookBundle: HOOK,
    ...rest,
  });
  if (!r.ok) throw new Error(r.reason);
  return r.value;
}

/** Commits everything in `root` as it is, then starts the session; returns its id. */
export async function startGitSession(root: string, state: string): Promise<string> {
  const git = (...args: string[]): void => void execFileSync('git', args, { cwd: root, stdio: 'ignore' });
  git('init', '-q');
  git('add', '-A');
  git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'base');
  return (await startTestSession(root, state)).policy.session_id;
}
