// One throwaway project gated by `gatehouse session start` for an end-to-end test: the
// project, its state folder, and the session, ended after the test.
import { join } from 'node:path';
import { expect } from 'vitest';
import { gatehouse } from '../../support/cli.js';
import { makeTempProject, type TempProject } from './temp-project.js';

/** A project with a `src/` folder and at most one session at a time. */
export interface GatedProject {
  project: TempProject;
  state: string;
  /** Starts a session for `agent` with `--allow 'src/**'` plus `extra` flags; returns its id. */
  start(agent: string, extra?: string[]): string;
  /** Ends the session (if any) and removes the project. */
  dispose(): void;
}

/** Makes a fresh project with its own state folder beside it. */
export function gatedProject(): GatedProject {
  const project = makeTempProject();
  const state = join(project.dir, '..', `${project.dir.split('/').at(-1)}-state`);
  project.write('src/.keep', '');
  let sessionId = '';
  return {
    project,
    state,
    start(agent, extra = []) {
      const r = gatehouse(['session', 'start', '--agent', agent, '--worktree', project.dir, '--state-dir', state, '--allow', 'src/**', ...extra]);
      expect(r.status, r.stderr).toBe(0);
      sessionId = r.stdout.trim();
      return sessionId;
    },
    dispose() {
      if (sessionId) gatehouse(['session', 'end', sessionId, '--worktree', project.dir, '--state-dir', state]);
      project.dispose();
    },
  };
}
