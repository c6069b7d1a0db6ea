// Small commands: `where` (the state dir) and `agents` (capability tables).
import { Command } from 'commander';
import { capabilitiesFor, knownAgents, NO_AGENT } from '../../adapters/registry.js';
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
