// `gatehouse session start|end|list|show|check`: the lifecycle of one gated agent run.
import { Command } from 'commander';
import { agentPrograms } from '../../adapters/agent-programs.js';
import type { StartedSession } from '../../gate/session-lifecycle.js';
import type { SandboxOffer } from '../../gate/session-sandbox.js';
import { TRANSPORT_CHOICES, type TransportChoice } from '../../adapters/hook-transport.js';
import { gatesNothing, knownAgents, NO_AGENT, parseAgentName } from '../../adapters/registry.js';
import { SessionStore } from '../../runtime/session-store.js';
import type { Capabilities } from '../../adapters/adapter.js';
import { safeForDisplay } from '../../core/display.js';
import { failureList, PASSED_SUMMARY, verdictJson, verdictPassed } from '../../core/verdict-report.js';
import { EXIT, UserError } from '../exit-codes.js';
import { hookBundlePath, openSession, printJson, projectStateFor } from '../context.js';
import { versionWarning } from '../doctor/version-warning.js';
import { stateBase } from '../../runtime/state-base.js';

/** Decisions shown when `-n` is not given: a screenful that still shows how the session went. */
const RECENT_DECISIONS = 10;

const collect = (value: string, prev: string[]): string[] => [...prev, value];

/** Options shared by `session start` and `run`. */
export interface StartFlags {
  agent: string;
  worktree?: string;
  id?: string;
  allow: string[];
  require: string[];
  config?: string;
  stateDir?: string;
  objective?: string;
  gateCommand?: string;
  profile?: string;
  transport?: string;
  json?: boolean;
  /** `run` only. */
  sandbox?: boolean;
  network?: string;
}

/** Adds the session-start flags to a command. */
export function withStartFlags(cmd: Command): Command {
  return cmd
    .requiredOption(
      '--agent <name>',
      `agent CLI to gate: ${knownAgents().join(', ')} (see \`gatehouse agents\`); or ${NO_AGENT} to gate nothing in-session (only the end-of-session check judges the work). Names match in any case; an unknown name is an error (exit 2)`,
    )
    .option('--worktree <dir>', 'project folder the agent works in', '.')
    .option('--id <id>', 'session id (default: generated)')
    .option('--allow <glob>', 'path the agent may write, relative to the worktree (repeatable)', collect, [])
    .option('--require <name=command>', 'required check, e.g. test="npm test" (repeatable)', collect, [])
    .option('--config <file>', 'config file (default: gatehouse.yaml or gatehouse.toml in the worktree)')
    .option('--state-dir <dir>', 'project state folder (default: see `gatehouse where`)')
    .option('--objective <text>', "the session's goal, checked by --gate-command at every stop (fail-closed)")
    .option('--gate-command <command>', 'shell command that must pass before the agent may stop (with --objective)')
    .option('--profile <name>', 'permission profile (read-only, builder, reviewer, or a custom one); fail-closed')
    .option('--transport <mode>', 'how hooks reach the gate: auto (warm when `gatehouse serve` runs for this project), command, warm', 'auto');
}

/** Starts a session from parsed flags or throws a UserError. */
export async function startFromFlags(flags: StartFlags, sandbox?: SandboxOffer): Promise<StartedSession> {
  const agent = parseAgentName(flags.agent);
  if (!agent.ok) throw new UserError(agent.reason, EXIT.usage);
  if ((flags.objective === undefined) !== (flags.gateCommand === undefined)) {
    throw new UserError('--objective and --gate-command go together: give both or neither', EXIT.usage);
  }
  const transport = flags.transport ?? 'auto';
  if (!(TRANSPORT_CHOICES as readonly string[]).includes(transport)) {
    throw new UserError(`--transport must be one of ${TRANSPORT_CHOICES.join(', ')}, got ${JSON.stringify(transport)}`, EXIT.usage);
  }
  // Loaded here, not with the command: it brings the config parser and the adapters' renderers.
  const { startSession } = await import('../../gate/session-lifecycle.js');
  const r = await startSession({
    transport: transport as TransportChoice,
    ...(flags.profile !== undefined ? { profile: flags.profile } : {}),
    ...(flags.objective !== undefined && flags.gateCommand !== undefined ? { goal: { objective: flags.objective, gateCommand: flags.gateCommand } } : {}),
    agent: agent.value,
    worktree: flags.worktree ?? '.',
    ...(flags.id !== undefined ? { id: flags.id } : {}),
    allow: flags.allow,
    require: flags.require,
    ...(flags.config !== undefined ? { configFile: flags.config } : {}),
    ...(flags.stateDir !== undefined ? { stateDir: flags.stateDir } : {}),
    env: process.env,
    nodePath: process.execPath,
    hookBundle: hookBundlePath(),
    ...(sandbox !== undefined ? { sandbox } : {}),
  });
  if (!r.ok) throw new UserError(r.reason);
  for (const note of r.value.notes) process.stderr.write(`gatehouse: note: ${note}\n`);
  const warning = versionWarning(r.value.policy.agent, process.env, stateBase(process.env));
  if (warning !== null) process.stderr.write(`gatehouse: warning: ${warning}\n`);
  return r.value;
}

/** Renders a capability table for humans. */
export function formatCapabilities(agent: string, caps: Capabilities): string {
  // Gating nothing is one fact, not five rows saying the same.
  if (gatesNothing(agent)) return `capabilities for ${NO_AGENT}: none; the end-of-session check is the only gate\n`;
  const rows = Object.entries(caps).map(([gate, c]) => `  ${gate.padEnd(16)} ${c.level.padEnd(9)} ${c.reason}`);
  // An agent that is a library has these gates only inside a program that calls its hooks.
  const library = agentPrograms().find((a) => a.agent === agent)?.programs.length === 0;
  return `capabilities for ${agent}${library ? " (only inside a program that calls Gatehouse's SDK hooks; none for any other command)" : ''}:\n${rows.join('\n')}\n`;
}

/** What gates the agent inside its session, in a few words: the rendered files, or why there are none. */
export function inSessionGates(s: StartedSession): string {
  if (gatesNothing(s.policy.agent)) return `not gated in-session (--agent ${NO_AGENT}): only the end-of-session check judges the work`;
  if (s.rendered.length > 0) return `hooks in ${s.rendered.join(', ')}`;
  // No hook files means the gate exists only inside a program that calls Gatehouse's SDK hooks:
  // say that, not that the command is gated.
  return `no hook files: ${s.policy.agent} gates only a program that uses Gatehouse's SDK integration (gatehouseHooks) in-process; a command that does not runs ungated (docs/agents.md)`;
}

function describeStarted(s: StartedSession): string {
  const p = s.policy;
  const lines = [
    `session ${p.session_id} started for ${p.agent} in ${p.worktree}`,
    `  allow:    ${p.allow.length > 0 ? p.allow.join(', ') : '(no allowlist: writes are not restricted)'}`,
    `  requires: ${p.producers.length > 0 ? p.producers.map((x) => `${x.name} (${x.command.join(' ')})`).join(', ') : '(no required checks)'}`,
    `  hooks:    ${inSessionGates(s)}`,
    `  transport: ${s.transport.kind === 'warm' ? `warm (supervisor on port ${s.transport.port}${s.transport.project === undefined ? '' : `, serving all projects, as ${s.transport.project}`}; falls back to the command when it is down)` : s.transport.kind === 'socket' ? 'socket (to the gatehouse run that sandboxes the agent; refuses when it is gone)' : 'command (a Node process per hook call)'}`,
    `  sandbox:  ${p.sandbox ? `bubblewrap ${p.sandbox.version}, network ${p.sandbox.network}, writable ${p.sandbox.writable.join(', ')}` : 'none: the agent runs as your user and can read the signing key and the dashboard token (see `gatehouse agents`)'}`,
  ];
  return `${lines.join('\n')}\n${formatCapabilities(p.agent, s.capabilities)}`;
}

/** The `session` command group. */
export function sessionCommand(): Command {
  const session = new Command('session').description('start, inspect and end gated agent sessions');

  withStartFlags(session.command('start').description('compile the policy, record the baseline and render the agent hooks'))
    .option('--json', 'print the session as JSON')
    .action(async (flags: StartFlags) => {
      const s = await startFromFlags(flags);
      if (flags.json)
        printJson({
          session_id: s.policy.session_id,
          state_dir: s.store.dir,
          policy: s.policy,
          rendered: s.rendered,
          gated_in_session: !gatesNothing(s.policy.agent),
          capabilities: s.capabilities,
          transport: s.transport,
        });
      else {
        process.stderr.write(describeStarted(s));
        process.stdout.write(`${s.policy.session_id}\n`);
      }
    });

  session
    .command('end')
    .description('remove exactly the hooks the session rendered (idempotent)')
    .argument('<id>', 'session id (found from any folder)')
    .option('--worktree <dir>', 'project folder', '.')
    .option('--state-dir <dir>', 'project state folder')
    .option('--json', 'print the result as JSON')
    .action(async (id: string, flags: { worktree?: string; stateDir?: string; json?: boolean }) => {
      const store = openSession(id, flags.worktree, flags.stateDir);
      const { endSession } = await import('../../gate/session-end.js');
      const r = endSession(store);
      if (!r.ok) throw new UserError(r.reason);
      if (flags.json) printJson({ session_id: id, removed_hooks: r.value.removed, already_ended: r.value.alreadyEnded });
      else if (r.value.alreadyEnded && r.value.removed === 0) process.stdout.write(`session ${id} already ended; nothing to remove\n`);
      else process.stdout.write(`session ${id} ended; ${r.value.removed} hook entr${r.value.removed === 1 ? 'y' : 'ies'} removed\n`);
    });

  session
    .command('check')
    .description('run the end-of-session check (required checks + scope) now')
    .argument('<id>', 'session id (found from any folder)')
    .option('--worktree <dir>', 'project folder', '.')
    .option('--state-dir <dir>', 'project state folder')
    .option('--json', 'print the result as JSON')
    .action(async (id: string, flags: { worktree?: string; stateDir?: string; json?: boolean }) => {
      const store = openSession(id, flags.worktree, flags.stateDir);
      const { checkSession } = await import('../../gate/session-end.js');
      const r = await checkSession(store);
      if (!r.ok) throw new UserError(r.reason);
      const passed = verdictPassed(r.value);
      if (flags.json) printJson({ session_id: id, ...verdictJson(r.value) });
      else if (passed) process.stdout.write(`session ${id} PASSED — ${PASSED_SUMMARY}\n`);
      else {
        const word = r.value.outcome === 'halt' ? 'was HALTED by' : 'FAILED';
        process.stdout.write(
          `session ${id} ${word} the end-of-session check:\n${failureList(r.value)}\n${r.value.outcome === 'halt' ? '' : `fix, then run \`gatehouse session check ${id}\` again\n`}`,
        );
      }
      if (!passed) process.exitCode = EXIT.failure;
    });

  session
    .command('list')
    .description('list the sessions of this project')
    .option('--worktree <dir>', 'project folder', '.')
    .option('--state-dir <dir>', 'project state folder')
    .option('--json', 'print as JSON')
    .action((flags: { worktree?: string; stateDir?: string; json?: boolean }) => {
      const projectState = projectStateFor(flags.worktree, flags.stateDir);
      const metas = SessionStore.list(projectState).flatMap((id) => {
        const m = new SessionStore(projectState, id).meta();
        return m.ok ? [m.value] : [];
      });
      if (flags.json) return printJson(metas);
      if (metas.length === 0) return void process.stdout.write('no sessions\n');
      for (const m of metas) {
        const verdict = m.end_verdict ? (m.end_verdict.verdict === 'not_run' ? 'not run' : m.end_verdict.passed ? 'passed' : 'failed') : '-';
        // meta.json is covered by no digest: an agent without a sandbox can write anything in it.
        process.stdout.write(
          `${safeForDisplay(m.id)}  ${safeForDisplay(String(m.agent)).padEnd(8)} ${safeForDisplay(String(m.status)).padEnd(6)} ${safeForDisplay(String(m.started_at))}  ${verdict}\n`,
        );
      }
    });

  session
    .command('show')
    .description('show one session: status, policy (as start recorded it) and recent gate decisions from the audit log')
    .argument('<id>', 'session id (found from any folder)')
    .option('--worktree <dir>', 'project folder', '.')
    .option('--state-dir <dir>', 'project state folder')
    .option('-n <count>', 'how many recent gate decisions to show', String(RECENT_DECISIONS))
    .option('--json', 'print as JSON')
    .action(async (id: string, flags: { worktree?: string; stateDir?: string; json?: boolean; n: string }) => {
      if (!/^\d+$/.test(flags.n)) throw new UserError(`-n must be a whole number, got ${JSON.stringify(flags.n)}`, EXIT.usage);
      const { showSession } = await import('../session-show.js');
      showSession(openSession(id, flags.worktree, flags.stateDir), { limit: Number(flags.n), ...(flags.json ? { json: true } : {}) });
    });

  return session;
}
