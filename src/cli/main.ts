// The `gatehouse` command line: thin command definitions over adapters/ and runtime/.
// Usage errors exit 2, failed outcomes exit 1 (see exit-codes.ts and README.md).
import { framed } from '../core/display.js';
import { Command, CommanderError } from 'commander';
import { EXIT, UserError } from './exit-codes.js';
import { packageVersion } from './version.js';

/**
 * The top-level commands in the order `--help` lists them, each loaded only when it is needed:
 * a command's module pulls in what it runs (the config parser, the gateway, the team store), and
 * loading all of them costs every call about a third of a second.
 */
const COMMANDS: readonly (readonly [name: string, load: () => Promise<Command>])[] = [
  ['session', async () => (await import('./commands/session.js')).sessionCommand()],
  ['run', async () => (await import('./commands/run.js')).runCommand()],
  ['audit', async () => (await import('./commands/audit.js')).auditCommand()],
  ['evidence', async () => (await import('./commands/evidence.js')).evidenceCommand()],
  ['keys', async () => (await import('./commands/keys.js')).keysCommand()],
  ['approve', async () => (await import('./commands/approvals.js')).approveCommand()],
  ['serve', async () => (await import('./commands/serve.js')).serveCommand()],
  ['tui', async () => (await import('./commands/approvals.js')).tuiCommand()],
  ['where', async () => (await import('./commands/misc.js')).whereCommand()],
  ['agents', async () => (await import('./commands/misc.js')).agentsCommand()],
  ['doctor', async () => (await import('./commands/doctor.js')).doctorCommand()],
  ['hook-gate', async () => (await import('./commands/hook-gate.js')).hookGateCommand()],
  ['demo', async () => (await import('./commands/demo.js')).demoCommand()],
  ['explain', async () => (await import('./commands/explain.js')).explainCommand()],
];

/**
 * The commands a command line needs: the one it names first, none for a bare `--version`, and all
 * of them otherwise (the overall help, `help <command>`, a mistyped name and its suggestion).
 * @example commandsFor(['session', 'list']) // ['session']
 */
function commandsFor(args: readonly string[]): string[] {
  const first = args[0];
  if (args.length === 1 && (first === '--version' || first === '-V')) return [];
  if (first !== undefined && COMMANDS.some(([name]) => name === first)) return [first];
  return COMMANDS.map(([name]) => name);
}

/** Builds the program with the named commands. */
async function buildProgram(names: readonly string[]): Promise<Command> {
  const program = new Command('gatehouse')
    .description('Supervise AI coding agents: blocking write and completion gates inside the agent session.')
    .version(packageVersion())
    .showHelpAfterError('(run with --help for usage)');
  // Loaded side by side, added in the listed order.
  for (const command of await Promise.all(COMMANDS.filter(([name]) => names.includes(name)).map(([, load]) => load()))) program.addCommand(command);
  const exitOverride = (c: Command): void => {
    c.exitOverride();
    for (const sub of c.commands) exitOverride(sub);
  };
  exitOverride(program);
  return program;
}

async function main(): Promise<void> {
  try {
    await (await buildProgram(commandsFor(process.argv.slice(2)))).parseAsync(process.argv);
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
