// `gatehouse hook-gate check`: the hook itself, for agents that call the CLI.
import { existsSync } from 'node:fs';
import { Command } from 'commander';
import { findSessionOnMachine } from '../../runtime/session-index.js';
import { startDigests } from '../../runtime/session-trust.js';
import { stateBase } from '../../runtime/state-base.js';
import { sessionDir } from '../../runtime/state-dir.js';
import { hookMain } from '../hook-command.js';
import { projectStateFor } from '../context.js';

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
