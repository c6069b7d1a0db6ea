// `gatehouse audit verify|tail|proof|checkpoint|export`: check the project's (or the team's)
// hash-chained audit log against trusted keys, read it, prove an event's inclusion, sign a
// checkpoint, export the team log as files.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Command } from 'commander';
import { verifyAuditParallel } from '../../runtime/audit/verify-parallel.js';
import { knownPublicKeys } from '../../runtime/key-history.js';
import { loadOrCreateKey, publicKeyFromPem } from '../../runtime/keys.js';
import type { AuditEvent } from '../../runtime/audit/index.js';
import { auditLogFor } from '../../runtime/recorder.js';
import { formatEvent, noEventsMessage, outputColumns } from '../audit-lines.js';
import { EXIT, UserError } from '../exit-codes.js';
import { printJson, projectStateFor } from '../context.js';
import type { VerifyReport } from '../../runtime/audit/verify.js';

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

/** Commander's collector for a repeatable option. */
function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
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
    .option('--key <pub.pem>', 'trusted public key; repeat it for each key (default: the keys in this state dir, which only proves self-consistency)', collect, [])
    .option('--dir <folder>', 'verify an audit folder (log.jsonl, checkpoints.jsonl), e.g. one written by `audit export`')
    .option('--store <postgres-url>', "verify the team log in this PostgreSQL store (needs --key for each machine's public key)")
    .addHelpText('after', '\nExit status: 0 intact, 1 tampered or broken (naming the first bad sequence number) or the store cannot be read, 2 usage.')
    .action(async (flags: Flags & { key: string[]; dir?: string; store?: string }) => {
      if (flags.dir !== undefined && flags.store !== undefined) throw new UserError('pass --dir or --store, not both', EXIT.usage);
      const given = flags.key.map(readTrustedKey);
      let report: VerifyReport;
      if (flags.store !== undefined) report = await (await import('./audit-store.js')).verifyStore(flags.store, given);
      else if (flags.dir !== undefined) {
        if (given.length === 0) throw new UserError('verify --dir needs --key PUB.pem: a folder from elsewhere has no keys of its own to trust', EXIT.usage);
        report = await verifyAuditParallel(resolve(flags.dir), given);
      } else {
        const state = projectStateFor(flags.worktree, flags.stateDir);
        const keys = given.length > 0 ? given : [...knownPublicKeys(state).values()];
        // On every core for a large log; the same report as the serial verify.
        report = await verifyAuditParallel(join(state, 'audit'), keys);
      }
      if (flags.json) printJson(report);
      else if (report.ok) {
        process.stdout.write(
          `intact: ${report.events} events, ${report.checkpoints} signed checkpoints, root ${report.root}${report.covered < report.events ? ` (${report.events - report.covered} newest events not yet under a checkpoint)` : ''}\n`,
        );
      } else {
        const where = report.first_bad?.seq !== null && report.first_bad?.seq !== undefined ? `first bad sequence number ${report.first_bad.seq}: ` : '';
        process.stdout.write(`BROKEN: ${where}${report.first_bad?.reason ?? report.problems[0] ?? 'unknown problem'}\n${report.problems.map((p) => `  - ${p}`).join('\n')}\n`);
      }
      if (given.length === 0 && !flags.json) process.stderr.write('note: verified against the keys stored beside the log; pass --key with a key you obtained separately for a real check\n');
      process.exitCode = report.ok ? EXIT.ok : EXIT.failure;
    });

  audit
    .command('export')
    .description('write the team log of a PostgreSQL store as log.jsonl and checkpoints.jsonl in a new folder (check it with `audit verify --dir`)')
    .requiredOption('--store <postgres-url>', 'the team store')
    .requiredOption('--out <folder>', 'a folder that does not exist yet')
    .option('--json', 'print as JSON')
    .addHelpText('after', '\nExit status: 0 written, 1 the store cannot be read, 2 usage (the folder exists).')
    .action(async (flags: { store: string; out: string; json?: boolean }) => {
      const { exportStore } = await import('./audit-store.js');
      const r = await exportStore(flags.store, flags.out);
      if (flags.json) printJson({ ...r, out: resolve(flags.out) });
      else process.stdout.write(`exported ${r.events} events and ${r.checkpoints} checkpoints to ${flags.out}; check it with: gatehouse audit verify --dir ${flags.out} --key PUB.pem …\n`);
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
