// `gatehouse audit verify|tail|proof|checkpoint`: check the project's hash-chained audit
// log against a trusted key, read it, prove an event's inclusion, sign a checkpoint.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { verifyAuditParallel } from '../../runtime/audit/verify-parallel.js';
import { knownPublicKeys } from '../../runtime/key-history.js';
import { loadOrCreateKey, publicKeyFromPem } from '../../runtime/keys.js';
import type { AuditEvent } from '../../runtime/audit/index.js';
import { auditLogFor } from '../../runtime/recorder.js';
import { formatEvent, noEventsMessage, outputColumns } from '../audit-lines.js';
import { EXIT, UserError } from '../exit-codes.js';
import { printJson, projectStateFor } from '../context.js';

type Flags = { worktree?: string; stateDir?: string; json?: boolean };
const withProject = (c: Command): Command => c.option('--worktree <dir>', 'project folder', '.').option('--state-dir <dir>', 'project state folder').option('--json', 'print as JSON');

/** How often `tail --follow` looks for new lines: fast enough to feel live, cheap when idle. */
const FOLLOW_POLL_MS = 250;

/** Reads a trusted public key from a PEM file, or explains what is wrong. */
export function readTrustedKey(file: string) {
  try {
    return publicKeyFromPem(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new UserError(`--key ${file}: ${(err as Error).message}; pass the PEM printed by \`gatehouse keys show\``, EXIT.usage);
  }
}

function parseCount(value: string, what: string): number {
  if (!/^\d+$/.test(value)) throw new UserError(`${what} must be a whole number, got ${JSON.stringify(value)}`, EXIT.usage);
  return Number(value);
}

/** The `audit` command group. */
export function auditCommand(): Command {
  const audit = new Command('audit').description('the signed, hash-chained audit log');

  withProject(audit.command('verify'))
    .description('recompute every hash, the Merkle root, each checkpoint signature and consistency proof')
    .option('--key <pub.pem>', 'trusted public key (default: the keys in this state dir, which only proves self-consistency)')
    .addHelpText('after', '\nExit status: 0 intact, 1 tampered or broken (naming the first bad sequence number), 2 usage.')
    .action(async (flags: Flags & { key?: string }) => {
      const state = projectStateFor(flags.worktree, flags.stateDir);
      const keys = flags.key ? [readTrustedKey(flags.key)] : [...knownPublicKeys(state).values()];
      // On every core for a large log; the same report as the serial verify.
      const report = await verifyAuditParallel(join(state, 'audit'), keys);
      if (flags.json) printJson(report);
      else if (report.ok) {
        process.stdout.write(
          `intact: ${report.events} events, ${report.checkpoints} signed checkpoints, root ${report.root}${report.covered < report.events ? ` (${report.events - report.covered} newest events not yet under a checkpoint)` : ''}\n`,
        );
      } else {
        const where = report.first_bad?.seq !== null && report.first_bad?.seq !== undefined ? `first bad sequence number ${report.first_bad.seq}: ` : '';
        process.stdout.write(`BROKEN: ${where}${report.first_bad?.reason ?? report.problems[0] ?? 'unknown problem'}\n${report.problems.map((p) => `  - ${p}`).join('\n')}\n`);
      }
      if (!flags.key && !flags.json) process.stderr.write('note: verified against the keys stored beside the log; pass --key with a key you obtained separately for a real check\n');
      process.exitCode = report.ok ? EXIT.ok : EXIT.failure;
    });

  withProject(audit.command('tail'))
    .description('print the last events: each with its fields and reason, wrapped to the terminal (--json: whole, one per line)')
    .option('-n <count>', 'how many', '10')
    .option('--follow', 'keep printing new events as they are appended')
    .action(async (flags: Flags & { n: string; follow?: boolean }) => {
      const log = auditLogFor(projectStateFor(flags.worktree, flags.stateDir));
      // A reader that stops early (`audit tail -n 500 | head`) closes the pipe: nobody is left
      // to tell, and nothing is left to do, so stop quietly instead of dying with a stack trace.
      process.stdout.on('error', (err: NodeJS.ErrnoException) => {
        if (err.code !== 'EPIPE') throw err;
        process.exit(EXIT.ok);
      });
      const columns = outputColumns(process.stdout, process.env);
      const print = (e: AuditEvent): void => {
        if (flags.json) process.stdout.write(`${JSON.stringify(e)}\n`);
        else process.stdout.write(`${formatEvent(e, columns).join('\n')}\n`);
      };
      const events = log.tail(parseCount(flags.n, '-n'));
      events.forEach(print);
      if (log.size() === 0) {
        // On stderr with --json, so stdout stays one event per line.
        (flags.json ? process.stderr : process.stdout).write(`${noEventsMessage(log.auditDir)}\n`);
        if (flags.follow) process.stderr.write('Waiting for the first event (Ctrl-C to stop).\n');
      }
      if (!flags.follow) return;
      let next = log.size();
      await new Promise<never>(() => {
        setInterval(() => {
          const size = log.size();
          if (size <= next) return;
          log.tail(size - next).forEach(print);
          next = size;
        }, FOLLOW_POLL_MS);
      });
    });

  withProject(audit.command('proof'))
    .description('print the inclusion proof of one event (RFC 6962) as JSON')
    .argument('<seq>', 'sequence number of the event')
    .option('--size <n>', 'tree size to prove against (default: the whole log)')
    .action((seqArg: string, flags: Flags & { size?: string }) => {
      const log = auditLogFor(projectStateFor(flags.worktree, flags.stateDir));
      const seq = parseCount(seqArg, 'SEQ');
      const size = flags.size !== undefined ? parseCount(flags.size, '--size') : log.size();
      if (seq >= size) throw new UserError(`no event ${seq}: ${eventRange(size, flags.size !== undefined)}`);
      printJson({ ...log.inclusionProof(seq, size), event: log.line(seq) });
    });

  withProject(audit.command('checkpoint'))
    .description('sign a checkpoint (tree head) of the log now')
    .action((flags: Flags) => {
      const state = projectStateFor(flags.worktree, flags.stateDir);
      const cp = auditLogFor(state).checkpoint(loadOrCreateKey(state));
      if (flags.json) printJson(cp);
      else process.stdout.write(cp.note);
    });

  return audit;
}

/** Which events a proof can name, in words: `the log has 3 events (0-2)`, or none yet. */
function eventRange(size: number, sizeGiven: boolean): string {
  const what = sizeGiven ? `a tree of size ${size}` : 'the log';
  if (size === 0) return sizeGiven ? `${what} holds no events` : 'the log has no events yet';
  return `${what} has ${size === 1 ? '1 event (0)' : `${size} events (0-${size - 1})`}`;
}
