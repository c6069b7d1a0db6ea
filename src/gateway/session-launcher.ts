// Starts a Gatehouse session for an agent spawned from the dashboard (`pty.spawn` with
// `session`), so it runs with its hooks rendered (in its sandbox when one is asked for);
// at exit: remove the hooks, run the final check, then close the sandbox.
import { agentMismatch, hooksSwitchedOff } from '../adapters/agent-programs.js';
import { NO_AGENT } from '../adapters/registry.js';
import { startSession } from '../gate/session-lifecycle.js';
import { checkSession, endSession, recordNeverRan } from '../gate/session-end.js';
import { quarantineNote, type SandboxOffer } from '../gate/session-sandbox.js';
import { splitCommand } from '../core/argv.js';
import { sandboxedArgv } from '../core/sandbox.js';
import { programProblem } from '../runtime/find-on-path.js';
import { startHookSocket } from './hook-socket.js';
import type { GateRunner } from './gate-runner.js';
import type { ExitInfo } from './pty/types.js';
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
  /** How a sandboxed session's hook calls are decided (the host's worker); in process when absent. */
  gate?: GateRunner;
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
    const off = hooksSwitchedOff(params.session.agent, [command, ...args], opts.env);
    if (off !== null) return fail(off);
    const offer: SandboxOffer = {
      // Always offered, so a config with `sandbox.enabled` is sandboxed from the dashboard too.
      requested: params.session.sandbox !== undefined,
      ...(params.session.sandbox?.network !== undefined ? { network: params.session.sandbox.network } : {}),
      startSocket: (o) => startHookSocket({ ...o, ...(opts.gate !== undefined ? { gate: opts.gate } : {}) }),
    };
    const started = await startSession({
      agent: params.session.agent,
      worktree: opts.worktree,
      allow: params.session.allow,
      require: params.session.require,
      stateDir: opts.stateDir,
      env: opts.env,
      nodePath: opts.nodePath,
      hookBundle: opts.hookBundle,
      sandbox: offer,
    });
    if (!started.ok) return fail(started.reason);
    const { store, policy, baseline, renderRecords, sandbox } = started.value;
    const trusted = { policy, baseline, rendered: renderRecords };
    const id = policy.session_id;
    // Once the agent and its end-of-session check are done: the hook socket and stand-in files go.
    const closeSandbox = async (): Promise<void> => {
      await sandbox
        ?.close()
        .then((moved) => {
          for (const m of moved) opts.log?.(`session ${id}: ${quarantineNote(m)}`);
        })
        .catch((err: unknown) => opts.log?.(`session ${id}: could not close its sandbox: ${String(err)}`));
    };
    // Settles once the session's end is done: a server that stops waits for it (the WebSocket endpoint's close).
    const onExit = (info: ExitInfo): Promise<void> => {
      const ended = endSession(store, info.exit_code, trusted);
      if (!ended.ok) opts.log?.(`session ${id}: could not remove its hooks: ${ended.reason}`);
      // Neither an exit code nor a signal: the PTY never started the command (or the client left first).
      if (info.exit_code === null && info.signal === null) {
        // The program word may itself be a secret (`API_KEY=sk-1`): the record and the log show it hidden.
        const shown = redactText(command);
        recordNeverRan(store, `${shown} was not started`);
        opts.log?.(`session ${id}: the command never ran (${shown}); nothing was checked`);
        return closeSandbox();
      }
      return checkSession(store, { ...trusted, hooksRendered: !ended.ok && renderRecords.length > 0 })
        .then(
          (r) => opts.log?.(`session ${id}: end-of-session check ${r.ok ? `${verdictWord(r.value)}${verdictPassed(r.value) ? '' : ` (${r.value.failed.join(', ')})`}` : `could not run: ${r.reason}`}`),
          (err: unknown) => opts.log?.(`session ${id}: end-of-session check failed to run: ${String(err)}`),
        )
        .finally(closeSandbox);
    };
    const geometry = { ...(params.rows ? { rows: params.rows } : {}), ...(params.cols ? { cols: params.cols } : {}) };
    const env = { GATEHOUSE_SESSION: id };
    if (sandbox === null) {
      return ok({ spawn: { command, args, cwd: policy.worktree, env, gatehouseSession: id, ...geometry }, label: `${policy.agent} · ${id}`, onExit });
    }
    // Inside, bwrap would only print "execvp: No such file" and exit 1, read as the agent's own exit.
    const missing = programProblem(command, policy.worktree, opts.env);
    if (missing !== null) {
      void onExit(NEVER_STARTED);
      return fail(redactText(missing));
    }
    const spec = sandbox.spec;
    // --die-with-parent: closing the terminal hangs up bwrap, which passes no signal on; this ends the sandbox with it.
    const [bwrap, ...bwrapArgv] = sandboxedArgv(spec, policy.worktree, [command, ...args], { dieWithParent: true });
    return ok({
      spawn: { command: bwrap!, args: bwrapArgv, shown: [command, ...args], gatehouseSession: id, cwd: policy.worktree, env, unsetEnv: [...sandbox.dropEnv], ...geometry },
      label: `${policy.agent} · ${id} · sandboxed (network ${spec.network})`,
      onExit,
    });
  };
}

/** How a command the launcher itself found missing ends its session: it never ran. */
const NEVER_STARTED: ExitInfo = { exit_code: null, signal: null, reason: 'closed' };
