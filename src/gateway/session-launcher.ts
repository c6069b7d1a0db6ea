// Starts a Gatehouse session for an agent spawned from the dashboard (`pty.spawn` with
// `session`), so it runs with its hooks rendered; at exit: remove the hooks, run the final check.
import { agentMismatch } from '../adapters/agent-programs.js';
import { NO_AGENT } from '../adapters/registry.js';
import { startSession } from '../adapters/session-lifecycle.js';
import { checkSession, endSession, recordNeverRan } from '../adapters/session-end.js';
import { splitCommand } from '../core/argv.js';
import { redactText } from '../core/redact-argv.js';
import { verdictPassed, verdictWord } from '../core/verdict-report.js';
import { fail, ok, type Result } from '../core/result.js';
import type { SessionLaunch, SessionRequest, SpawnParams } from './ws/pty-host.js';

/** Where sessions started from the dashboard live and how their hooks run. */
export interface LauncherOptions {
  worktree: string;
  stateDir: string;
  env: NodeJS.ProcessEnv;
  nodePath: string;
  hookBundle: string;
  log?: (line: string) => void;
}

/** The `onSpawnSession` hook of the WebSocket endpoint. */
export function sessionLauncher(opts: LauncherOptions): (params: SpawnParams & { session: SessionRequest }) => Promise<Result<SessionLaunch>> {
  return async (params) => {
    if (params.session.agent.trim().toLowerCase() === NO_AGENT && params.command === undefined) {
      return fail(`session.agent "${NO_AGENT}" gates nothing and names no program: give the command to run`);
    }
    // Without an explicit command, the agent's own CLI name is the command (e.g. `claude`).
    let command = params.command ?? params.session.agent;
    let args = params.args ?? [];
    if (params.command !== undefined && params.args === undefined && /\s/.test(params.command)) {
      const argv = splitCommand(params.command);
      if (!argv.ok) return fail(redactText(argv.reason));
      [command, ...args] = argv.value as [string, ...string[]];
    }
    // Checked before anything is rendered: another agent's CLI under this session would run ungated.
    const mismatch = agentMismatch(params.session.agent, [command, ...args], 'session.agent');
    if (mismatch !== null) return fail(mismatch);
    const started = await startSession({
      agent: params.session.agent,
      worktree: opts.worktree,
      allow: params.session.allow,
      require: params.session.require,
      stateDir: opts.stateDir,
      env: opts.env,
      nodePath: opts.nodePath,
      hookBundle: opts.hookBundle,
    });
    if (!started.ok) return fail(started.reason);
    const { store, policy, baseline, renderRecords } = started.value;
    const trusted = { policy, baseline, rendered: renderRecords };
    return ok({
      spawn: { command, args, cwd: policy.worktree, env: { GATEHOUSE_SESSION: policy.session_id }, ...(params.rows ? { rows: params.rows } : {}), ...(params.cols ? { cols: params.cols } : {}) },
      label: `${policy.agent} · ${policy.session_id}`,
      onExit: (info) => {
        const ended = endSession(store, info.exit_code, trusted);
        if (!ended.ok) opts.log?.(`session ${policy.session_id}: could not remove its hooks: ${ended.reason}`);
        // Neither an exit code nor a signal: the PTY never started the command (or the client left first).
        if (info.exit_code === null && info.signal === null) {
          // The program word may itself be a secret (`API_KEY=sk-1`): the record and the log show it hidden.
          const shown = redactText(command);
          recordNeverRan(store, `${shown} was not started`);
          opts.log?.(`session ${policy.session_id}: the command never ran (${shown}); nothing was checked`);
          return;
        }
        checkSession(store, { ...trusted, hooksRendered: !ended.ok && renderRecords.length > 0 }).then(
          (r) => opts.log?.(`session ${policy.session_id}: end-of-session check ${r.ok ? `${verdictWord(r.value)}${verdictPassed(r.value) ? '' : ` (${r.value.failed.join(', ')})`}` : `could not run: ${r.reason}`}`),
          (err: unknown) => opts.log?.(`session ${policy.session_id}: end-of-session check failed to run: ${String(err)}`),
        );
      },
    });
  };
}
