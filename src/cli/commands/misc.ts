// Small commands: `where` (the state dir), `agents` (capability tables) and
// `hook-gate check` (the hook itself, for agents that call the CLI).
import { existsSync } from 'node:fs';
import { Command } from 'commander';
import { findSessionOnMachine } from '../../runtime/session-index.js';
import { startDigests } from '../../runtime/session-trust.js';
import { stateBase } from '../../runtime/state-base.js';
import { sessionDir } from '../../runtime/state-dir.js';
import { capabilitiesFor, knownAgents, NO_AGENT } from '../../adapters/registry.js';
import { hookMain } from '../hook-command.js';
import { printJson, projectStateFor } from '../context.js';
import { formatCapabilities } from './session.js';

/** `gatehouse where`. */
export function whereCommand(): Command {
  return new Command('where')
    .description("print this project's state folder")
    .option('--worktree <dir>', 'project folder', '.')
    .option('--state-dir <dir>', 'project state folder')
    .option('--json', 'print as JSON')
    .action((flags: { worktree?: string; stateDir?: string; json?: boolean }) => {
      const dir = projectStateFor(flags.worktree, flags.stateDir);
      if (flags.json) printJson({ state_dir: dir });
      else process.stdout.write(`${dir}\n`);
    });
}

/**
 * What no hook can promise while the agent runs as the same OS user as Gatehouse (docs/trust-boundary.md).
 * Shown wherever the capability tables are, so nobody reads "blocking" as "sandboxed".
 */
const NO_SANDBOX_NOTE = [
  'Without an OS sandbox the agent runs as your user: the gates refuse what they see and the',
  'end-of-session check catches what they do not, but any process of yours, the agent included,',
  "can read Gatehouse's signing key (so evidence proves what the key signed, not who) and the",
  "dashboard's access token. Evidence records `sandboxed: false` for such sessions.",
].join('\n');

/** What `gatehouse run --sandbox` adds, and what it still does not cover (docs/sandbox.md). */
const SANDBOX_NOTE = [
  '`gatehouse run --sandbox` (Linux, bubblewrap) runs the agent, its tools, its hooks and the',
  "required checks in a sandbox: Gatehouse's state, keys and tokens are not visible, nor are /run",
  "and the other folders where this machine's services listen; only the worktree (or the folders",
  "of a folder-shaped allowlist), a private /tmp and the agent's own data folders are writable;",
  'agent settings and .git/config, hooks and info stay read-only; hooks reach `gatehouse run`',
  'through a socket and refuse when it is gone. Not covered: kernel exploits, the network with',
  '`--network host` (the default: agents need their model API; abstract sockets such as an X11',
  'display included), files the agent makes directly in .git (a commondir is moved aside at the',
  'end), and secrets the readable file system holds (~/.ssh unless sandbox.hide names it).',
].join('\n');

/** `gatehouse agents`. */
export function agentsCommand(): Command {
  return new Command('agents')
    .description('list the agents Gatehouse can gate and how, per gate')
    .option('--json', 'print as JSON')
    .action((flags: { json?: boolean }) => {
      const agents = knownAgents();
      if (flags.json) return printJson(Object.fromEntries(agents.map((a) => [a, capabilitiesFor(a)])));
      for (const a of agents) process.stdout.write(formatCapabilities(a, capabilitiesFor(a)));
      process.stdout.write(`\n--agent ${NO_AGENT}: gate nothing in-session, on purpose; only the end-of-session check judges the work.\n`);
      process.stdout.write(`\n${NO_SANDBOX_NOTE}\n\n${SANDBOX_NOTE}\n`);
    });
}

/**
 * The state folder for a manual `hook-gate check`: `--state-dir`, else the current folder's project
 * when it holds the session, else the one project on the machine that does. When none does, the
 * current folder's, so the hook reports the missing session as it always has.
 */
function hookStateDir(sessionId: string, stateDir: string | undefined): string {
  const here = projectStateFor(undefined, stateDir);
  if (stateDir !== undefined || existsSync(sessionDir(here, sessionId))) return here;
  const { found } = findSessionOnMachine(stateBase(process.env), sessionId);
  return found.length === 1 ? found[0]!.projectState : here;
}

/**
 * The policy digest a manual `hook-gate check` holds the session to: `--policy-sha256`, else the
 * one `session start` recorded in the audit log, so a policy.json rewritten since (in whichever
 * folder the session was found) is refused as tampering, as a rendered hook refuses it. Undefined
 * when there is no session folder (the hook reports that); null when the log has no start record.
 */
function hookPolicyDigest(stateDir: string, sessionId: string, given: string | undefined): string | null | undefined {
  if (given !== undefined || !existsSync(sessionDir(stateDir, sessionId))) return given;
  return startDigests(stateDir, sessionId)?.policy ?? null;
}

/** `gatehouse hook-gate check …`: the same code as the lean hook bundle. */
export function hookGateCommand(): Command {
  const group = new Command('hook-gate').description('the hook the agent runs: reads its hook JSON on stdin; exit 0 allows, 2 blocks with the reason on stderr');
  group
    .command('check')
    .requiredOption('--session <id>', 'session id')
    .requiredOption('--event <name>', 'PreToolUse or Stop')
    .option('--state-dir <dir>', "project state folder (default: the current folder's project, else wherever on this machine the session is)")
    .option('--agent <name>', 'agent whose hook JSON this is', 'claude')
    .option('--policy-sha256 <hex>', 'digest of the session policy recorded at start (default: the one in the audit log); a policy that no longer matches refuses everything')
    .option('--fail-closed', 'refuse on an internal failure instead of allowing')
    .action(async (flags: { session: string; event: string; stateDir?: string; agent: string; policySha256?: string; failClosed?: boolean }) => {
      const stateDir = hookStateDir(flags.session, flags.stateDir);
      const digest = hookPolicyDigest(stateDir, flags.session, flags.policySha256);
      if (digest === null) {
        // Without a recorded digest nothing says the policy is the one the session started with.
        process.stderr.write(
          `gatehouse: refused: the audit log in ${stateDir} has no start record for session ${flags.session}, so its policy.json cannot be checked. ` +
            'Pass --policy-sha256 with the digest from the rendered hook command, or end the session and start a new one.\n',
        );
        process.exitCode = 2;
        return;
      }
      const argv = ['check', '--session', flags.session, '--event', flags.event, '--state-dir', stateDir, '--agent', flags.agent];
      if (digest !== undefined) argv.push('--policy-sha256', digest);
      if (flags.failClosed) argv.push('--fail-closed');
      process.exitCode = await hookMain(argv);
    });
  return group;
}
