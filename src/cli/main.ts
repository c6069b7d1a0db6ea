// The `gatehouse` command line: thin command definitions over adapters/ and runtime/.
// Usage errors exit 2, failed outcomes exit 1 (see exit-codes.ts and README.md).
import { framed } from '../core/display.js';
import { Command, CommanderError } from 'commander';
import { agentsCommand, hookGateCommand, whereCommand } from './commands/misc.js';
import { demoCommand } from './commands/demo.js';
import { explainCommand } from './commands/explain.js';
import { doctorCommand } from './commands/doctor.js';
import { auditCommand } from './commands/audit.js';
import { evidenceCommand } from './commands/evidence.js';
import { keysCommand } from './commands/keys.js';
import { approveCommand, tuiCommand } from './commands/approvals.js';
import { serveCommand } from './commands/serve.js';
import { runCommand } from './commands/run.js';
import { sessionCommand } from './commands/session.js';
import { EXIT, UserError } from './exit-codes.js';
import { packageVersion } from './version.js';

/** Builds the program; exported so tests can inspect the command tree. */
export function buildProgram(): Command {
  const program = new Command('gatehouse')
    .description('Supervise AI coding agents: blocking write and completion gates inside the agent session.')
    .version(packageVersion())
    .showHelpAfterError('(run with --help for usage)');
  for (const cmd of [
    sessionCommand(),
    runCommand(),
    auditCommand(),
    evidenceCommand(),
    keysCommand(),
    approveCommand(),
    serveCommand(),
    tuiCommand(),
    whereCommand(),
    agentsCommand(),
    doctorCommand(),
    hookGateCommand(),
    demoCommand(),
    explainCommand(),
  ])
    program.addCommand(cmd);
  const exitOverride = (c: Command): void => {
    c.exitOverride();
    for (const sub of c.commands) exitOverride(sub);
  };
  exitOverride(program);
  return program;
}

async function main(): Promise<void> {
  try {
    await buildProgram().parseAsync(process.argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version "fail" with exit code 0.
      process.exitCode = err.exitCode === 0 ? EXIT.ok : EXIT.usage;
      return;
    }
    if (err instanceof UserError) {
      // Messages quote paths and records an agent may have written: made safe, lines kept.
      process.stderr.write(`gatehouse: ${framed(err.message, '')}\n`);
      process.exitCode = err.code;
      return;
    }
    // A file it could not use (a FIFO the agent put in the state folder, a full disk, a permission):
    // the message names the file; a stack would only hide it.
    const code = (err as NodeJS.ErrnoException | null)?.code;
    if (err instanceof Error && typeof code === 'string' && /^E[A-Z]+$/.test(code)) {
      process.stderr.write(`gatehouse: ${framed(err.message, '')} (${code}). Fix or remove that file, then run again.\n`);
      process.exitCode = EXIT.failure;
      return;
    }
    throw err;
  }
}

await main();
