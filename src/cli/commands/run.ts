// `gatehouse run [flags] -- CMD`: start a session, run the agent with inherited stdio,
// then remove the hooks and run the authoritative end-of-session check.
import { spawn, type ChildProcess } from 'node:child_process';
import { constants } from 'node:os';
import { Command } from 'commander';
import { checkSession, endSession, recordNeverRan } from '../../gate/session-end.js';
import { safeForDisplay } from '../../core/display.js';
import { failureList, PASSED_SUMMARY, verdictJson, verdictPassed } from '../../core/verdict-report.js';
import { redactText } from '../../core/redact-argv.js';
import { EXIT, UserError } from '../exit-codes.js';
import { gateWorkerPath, printJson } from '../context.js';
import { agentMismatch, hooksSwitchedOff } from '../../adapters/agent-programs.js';
import { gatesNothing, parseAgentName } from '../../adapters/registry.js';
import { formatCapabilities, inSessionGates, startFromFlags, withStartFlags, type StartFlags } from './session.js';
import type { StartedSession } from '../../gate/session-lifecycle.js';
import { quarantineNote, type SandboxOffer } from '../../gate/session-sandbox.js';
import { SANDBOX_NETWORKS, sandboxRecord, type SandboxNetwork, type SandboxRecord, type SandboxSpec } from '../../core/sandbox.js';
import { startHookSocket } from '../../gateway/hook-socket.js';
import { hostedGate } from '../../gateway/gate-runner.js';
import { programProblem } from '../../runtime/find-on-path.js';
import { spawnSandboxed } from '../../runtime/sandbox/spawn.js';
import { startRunProgress } from '../run-progress.js';
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadConfig } from '../../runtime/config.js';
import { projectKey } from '../../runtime/state-base.js';
import type { TeamLink } from '../../runtime/store/team-link.js';
import { projectStateFor } from '../context.js';
import { parseFallback, settingOrExit, startLinkOrExit, teamStoreSpec } from '../team-store.js';

/** Exit status of a child that ended by a signal, as a shell reports it. */
function signalStatus(signal: NodeJS.Signals): number {
  return 128 + (constants.signals[signal] ?? 0);
}

/**
 * Owns Ctrl-C for the whole run: installed before the session starts and removed after the
 * hooks are cleaned, so a signal at any moment reaches the child (if any) but never kills
 * Gatehouse before it has removed what it rendered. Repeats escalate: SIGTERM, then SIGKILL.
 */
class SignalRelay {
  private interrupts = 0;
  private child: ChildProcess | null = null;
  private killer: ((signal: NodeJS.Signals) => void) | null = null;
  private readonly onSignal = (sig: NodeJS.Signals): void => {
    this.interrupts++;
    const next: NodeJS.Signals = this.interrupts === 1 ? sig : this.interrupts === 2 ? 'SIGTERM' : 'SIGKILL';
    const c = this.child;
    if (c && c.exitCode === null && c.signalCode === null) {
      if (this.killer !== null) this.killer(next);
      else c.kill(next);
    }
  };

  constructor() {
    for (const s of RELAYED) process.on(s, this.onSignal);
  }

  /** True once the user interrupted: the agent is not started after that. */
  get interrupted(): boolean {
    return this.interrupts > 0;
  }

  /** Signals go to `child`, or through `kill` when the program runs below it (a sandbox). */
  attach(child: ChildProcess, kill?: (signal: NodeJS.Signals) => void): void {
    this.child = child;
    this.killer = kill ?? null;
  }

  dispose(): void {
    for (const s of RELAYED) process.off(s, this.onSignal);
  }
}

const RELAYED: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/** How the child ended; `error` when it never ran (it could not start, or Ctrl-C came first). */
interface ChildEnd {
  status: number;
  error?: string;
}

/** Runs `argv` in `cwd` with inherited stdio (inside `sandbox` when given), relaying signals to it. */
function runChild(argv: string[], cwd: string, env: NodeJS.ProcessEnv, relay: SignalRelay, sandbox: SandboxSpec | null): Promise<ChildEnd> {
  if (sandbox !== null) return runSandboxedChild(argv, cwd, env, relay, sandbox);
  return new Promise((resolvePromise) => {
    const child = spawn(argv[0]!, argv.slice(1), { cwd, env, stdio: 'inherit' });
    relay.attach(child);
    // The reason quotes the command, which may be a secret (`API_KEY=sk-1 claude` run without `env`).
    child.on('error', (err) => resolvePromise({ status: EXIT_NOT_STARTED, error: redactText(startFailure(argv[0]!, err)) }));
    child.on('exit', (code, signal) => resolvePromise({ status: code ?? (signal ? signalStatus(signal) : 1) }));
  });
}

/** {@link runChild} inside the session's sandbox. */
function runSandboxedChild(argv: string[], cwd: string, env: NodeJS.ProcessEnv, relay: SignalRelay, sandbox: SandboxSpec): Promise<ChildEnd> {
  const missing = programProblem(argv[0]!, cwd, env);
  if (missing !== null) return Promise.resolve({ status: EXIT_NOT_STARTED, error: redactText(missing) });
  return new Promise((resolvePromise) => {
    const started = spawnSandboxed(sandbox, cwd, argv, env);
    relay.attach(started.child, started.kill);
    started.child.on('error', (err) => resolvePromise({ status: EXIT_NOT_STARTED, error: startFailure(sandbox.bwrap, err) }));
    // 'close': bwrap's status pipe is read to the end, so it is known whether the program ran.
    started.child.on('close', (code, signal) => {
      // bwrap's own failure (a mount it could not make) is not the agent's exit: nothing ran.
      if (!started.ran() && signal === null) resolvePromise({ status: EXIT_NOT_STARTED, error: 'the sandbox could not start the command (bwrap said why above)' });
      else resolvePromise({ status: code ?? (signal ? signalStatus(signal) : 1) });
    });
  });
}

/** Why `cmd` could not start, in plain words with what to do; the errno only when it is neither common case. */
function startFailure(cmd: string, err: NodeJS.ErrnoException): string {
  if (err.code === 'ENOENT') return `${cmd}: command not found (check the name and PATH)`;
  if (err.code === 'EACCES') return `${cmd} is not executable (chmod +x, or run it through its interpreter)`;
  return `could not start ${cmd}: ${err.message}`;
}

/** A shell's status for a command it could not start; `run` keeps it so scripts can tell. */
const EXIT_NOT_STARTED = 127;
/** How long `run` waits at its end for the session's last records to reach the team store before it exits anyway. */
const FINAL_FLUSH_MS = 15_000;

/**
 * The team link for this run's project when its store is PostgreSQL (else null), started before
 * the session so a store that cannot be used stops the run before anything is rendered.
 */
async function linkForRun(flags: StartFlags & { storeFallback?: string }): Promise<TeamLink | null> {
  const fallback = parseFallback(flags.storeFallback);
  let worktree: string;
  try {
    worktree = realpathSync(resolve(flags.worktree ?? '.'));
  } catch {
    return null; // the session's start says what is wrong with the folder
  }
  const config = loadConfig({ root: worktree, ...(flags.config !== undefined ? { file: resolve(flags.config) } : {}) });
  if (!config.ok) return null; // …and with the config
  const spec = settingOrExit(teamStoreSpec(undefined, config.value.store, process.env));
  if (spec === null) return null;
  const projectState = projectStateFor(worktree, flags.stateDir);
  return startLinkOrExit(spec, [{ projectState, projectKey: projectKey(worktree), worktree }], fallback, (line) => void process.stderr.write(`gatehouse: team store: ${line}\n`));
}
/** The `run` command. */
export function runCommand(): Command {
  return withStartFlags(new Command('run').description('start a session, run CMD in the worktree, end it and check the result'))
    .argument('<command...>', 'the agent command, after --')
    .option('--json', 'print the verdict as JSON')
    .option('--sandbox', 'run CMD, its hooks and the required checks inside a bubblewrap sandbox (Linux); refused, never skipped, when it cannot be made (see docs/sandbox.md)')
    .option('--network <mode>', 'network inside the sandbox: host (default: the agent reaches its model API) or none')
    .option(
      '--store-fallback <store>',
      "when the team store (store: in gatehouse.yaml, or GATEHOUSE_STORE) cannot be reached: run on this machine's file store and forward to the team store once it answers (file)",
    )
    .addHelpText(
      'after',
      '\nExit status: CMD\'s own status if the end-of-session check passed, otherwise 1; 127 if CMD could not be started (nothing is checked then); 69 if the team store cannot be used (nothing is started; see --store-fallback).\nExample: gatehouse run --agent claude --allow "src/**" --require test="npm test" -- claude -p "fix the bug"',
    )
    .action(async (command: string[], flags: StartFlags & { storeFallback?: string }) => {
      if (command.length === 0) throw new UserError('give the command to run after --', EXIT.usage);
      // Before the session starts: another agent's CLI under this one's gate would run ungated.
      const agent = parseAgentName(flags.agent);
      const mismatch = agent.ok ? agentMismatch(agent.value, command, '--agent') : null;
      if (mismatch !== null) throw new UserError(mismatch, EXIT.usage);
      const off = agent.ok ? hooksSwitchedOff(agent.value, command, process.env) : null;
      if (off !== null) throw new UserError(off, EXIT.usage);
      if (flags.network !== undefined && !(SANDBOX_NETWORKS as readonly string[]).includes(flags.network)) {
        throw new UserError(`--network must be one of ${SANDBOX_NETWORKS.join(', ')}, got ${JSON.stringify(flags.network)}`, EXIT.usage);
      }
      const link = await linkForRun(flags);
      const relay = new SignalRelay();
      try {
        await runSession(command, flags, relay);
      } finally {
        relay.dispose();
        // The verdict reaches the team store before `run` exits, or it is said that it waits in the state folder.
        if (link !== null) {
          await link.flush(FINAL_FLUSH_MS);
          await link.stop();
        }
      }
    });
}

/** Start → agent → remove hooks → authoritative check → verdict. */
async function runSession(command: string[], flags: StartFlags, relay: SignalRelay): Promise<void> {
  // A sandboxed session's hook calls are decided here, in a worker thread: a lock one of them
  // waits on never stalls the signal relay or the agent's output.
  const gate = hostedGate(gateWorkerPath());
  const offer: SandboxOffer = {
    requested: flags.sandbox === true,
    ...(flags.network !== undefined ? { network: flags.network as SandboxNetwork } : {}),
    startSocket: (o) => startHookSocket({ ...o, gate: gate.run }),
  };
  try {
    const s = await startFromFlags(flags, offer);
    try {
      await runStarted(s, command, flags, relay);
    } finally {
      for (const moved of (await s.sandbox?.close()) ?? []) process.stderr.write(`gatehouse: ${quarantineNote(moved)}\n`);
    }
  } finally {
    await gate.close();
  }
}

/** The sandbox for `--json`: its record, or null when the agent ran as the user. */
function sandboxJson(s: StartedSession): SandboxRecord | null {
  return s.sandbox !== null ? sandboxRecord(s.sandbox.spec) : null;
}

/** The environment the agent gets: this one, the session id, and none of the secrets the sandbox keeps from it. */
function agentEnv(s: StartedSession): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, GATEHOUSE_SESSION: s.policy.session_id };
  for (const name of s.sandbox?.dropEnv ?? []) delete env[name];
  return env;
}

async function runStarted(s: StartedSession, command: string[], flags: StartFlags, relay: SignalRelay): Promise<void> {
  const id = s.policy.session_id;
  const gated = !gatesNothing(s.policy.agent);
  process.stderr.write(`gatehouse: session ${id} started (${inSessionGates(s)})\n`);
  if (s.sandbox !== null)
    process.stderr.write(`gatehouse: sandbox: bubblewrap ${s.sandbox.spec.version}, network ${s.sandbox.spec.network}, writable: ${s.sandbox.spec.writable.join(', ')} and a private /tmp\n`);
  if (s.rendered.length === 0) process.stderr.write(formatCapabilities(s.policy.agent, s.capabilities));
  // Refusals, refused stops and waiting calls are told as they happen, each a whole line on stderr.
  const stopProgress = startRunProgress({ projectState: s.store.projectState, sessionId: id, worktree: s.policy.worktree, write: (line) => void process.stderr.write(`${line}\n`) });
  let child: { status: number; error?: string };
  try {
    child = relay.interrupted
      ? { status: signalStatus('SIGINT'), error: 'interrupted before the agent started' }
      : await runChild(command, s.policy.worktree, agentEnv(s), relay, s.sandbox?.spec ?? null);
  } finally {
    stopProgress();
  }
  // Hooks come out first, so the check sees the settings exactly as the user had them.
  // The copies kept in memory since start: nothing the agent rewrote in the state folder counts.
  const trusted = { policy: s.policy, baseline: s.baseline, rendered: s.renderRecords };
  const ended = endSession(s.store, child.status, trusted);
  if (!ended.ok) process.stderr.write(`gatehouse: could not remove the rendered hooks: ${safeForDisplay(ended.reason)}\n`);
  const notGated = gated ? '' : ' (not gated in-session: --agent none)';
  if (child.error !== undefined) {
    // Nothing ran, so nothing can have passed: say so instead of judging an untouched worktree.
    recordNeverRan(s.store, child.error);
    if (flags.json)
      printJson({
        session_id: id,
        command_status: child.status,
        command_ran: false,
        passed: false,
        verdict: 'not_run',
        gated_in_session: gated,
        sandbox: sandboxJson(s),
        check: null,
        error: child.error,
      });
    else process.stderr.write(`gatehouse: session ${id} NOT RUN — the command never ran: ${child.error}. There is no work to check; run again once it can start.\n`);
    process.exitCode = child.status;
    return;
  }
  const check = await checkSession(s.store, { ...trusted, hooksRendered: !ended.ok && s.renderRecords.length > 0 });
  const passed = check.ok && verdictPassed(check.value);
  if (flags.json) {
    const verdict = check.ok ? verdictJson(check.value) : { error: check.reason };
    printJson({
      session_id: id,
      command_status: child.status,
      command_ran: true,
      passed,
      verdict: 'verdict' in verdict ? verdict.verdict : 'failed',
      gated_in_session: gated,
      sandbox: sandboxJson(s),
      check: verdict,
    });
  } else if (!check.ok) {
    process.stderr.write(`gatehouse: session ${id} could not be checked${notGated} — ${safeForDisplay(check.reason)}\n`);
  } else if (passed) {
    process.stderr.write(`gatehouse: session ${id} PASSED${notGated} — ${PASSED_SUMMARY}\n`);
  } else {
    const word = check.value.outcome === 'halt' ? 'was HALTED by' : 'FAILED';
    process.stderr.write(`gatehouse: session ${id} ${word} the end-of-session check${notGated}:\n${failureList(check.value)}\n`);
  }
  process.exitCode = passed && ended.ok ? child.status : EXIT.failure;
}
