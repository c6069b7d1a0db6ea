// `gatehouse run [flags] -- CMD`: start a session, run the agent with inherited stdio,
// then remove the hooks and run the authoritative end-of-session check.
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { Command } from 'commander';
import { checkSession, endSession } from '../../adapters/session-lifecycle.js';
import { EXIT, UserError } from '../exit-codes.js';
import { printJson } from '../context.js';
import { formatCapabilities, startFromFlags, withStartFlags, type StartFlags } from './session.js';

/** Exit status of a child that ended by a signal, as a shell reports it. */
function signalStatus(signal: NodeJS.Signals): number {
  return 128 + (constants.signals[signal] ?? 0);
}

/** Runs `argv` in `cwd` with inherited stdio; Ctrl-C goes to the child, and escalates if repeated. */
function runChild(argv: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<{ status: number; error?: string }> {
  return new Promise((resolvePromise) => {
    const child = spawn(argv[0]!, argv.slice(1), { cwd, env, stdio: 'inherit' });
    let interrupts = 0;
    const onSignal = (sig: NodeJS.Signals): void => {
      interrupts++;
      // The terminal already sent SIGINT to the child too; repeat, then escalate.
      const next: NodeJS.Signals = interrupts === 1 ? sig : interrupts === 2 ? 'SIGTERM' : 'SIGKILL';
      if (child.exitCode === null && child.signalCode === null) child.kill(next);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    process.on('SIGHUP', onSignal);
    const done = (r: { status: number; error?: string }): void => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      process.off('SIGHUP', onSignal);
      resolvePromise(r);
    };
    child.on('error', (err) => done({ status: 127, error: `could not start ${argv[0]}: ${err.message}` }));
    child.on('exit', (code, signal) => done({ status: code ?? (signal ? signalStatus(signal) : 1) }));
  });
}

/** The `run` command. */
export function runCommand(): Command {
  return withStartFlags(new Command('run').description('start a session, run CMD in the worktree, end it and check the result'))
    .argument('<command...>', 'the agent command, after --')
    .option('--json', 'print the verdict as JSON')
    .addHelpText('after', '\nExit status: CMD\'s own status if the end-of-session check passed, otherwise 1.\nExample: gatehouse run --agent claude --allow "src/**" --require test="npm test" -- claude -p "fix the bug"')
    .action(async (command: string[], flags: StartFlags) => {
      if (command.length === 0) throw new UserError('give the command to run after --', EXIT.usage);
      const s = await startFromFlags(flags);
      const id = s.policy.session_id;
      process.stderr.write(`gatehouse: session ${id} started (${s.rendered.length > 0 ? `hooks in ${s.rendered.join(', ')}` : 'no hooks rendered'})\n`);
      if (s.rendered.length === 0) process.stderr.write(formatCapabilities(s.policy.agent, s.capabilities));
      const child = await runChild(command, s.policy.worktree, { ...process.env, GATEHOUSE_SESSION: id });
      if (child.error) process.stderr.write(`gatehouse: ${child.error}\n`);
      // Hooks come out first, so the check sees the settings exactly as the user had them.
      const ended = endSession(s.store);
      if (!ended.ok) process.stderr.write(`gatehouse: could not remove the rendered hooks: ${ended.reason}\n`);
      const check = await checkSession(s.store);
      const passed = check.ok && check.value.outcome === 'continue';
      if (flags.json) {
        printJson({ session_id: id, command_status: child.status, passed, check: check.ok ? check.value : { error: check.reason } });
      } else if (passed) {
        process.stderr.write(`gatehouse: session ${id} PASSED — every required check passed and every change is inside the allowlist\n`);
      } else {
        const why = check.ok ? `${check.value.decidedBy}: ${check.value.reason}` : check.reason;
        process.stderr.write(`gatehouse: session ${id} FAILED the end-of-session check — ${why}\n`);
      }
      process.exitCode = passed && ended.ok ? child.status : EXIT.failure;
    });
}
