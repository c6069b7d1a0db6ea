// `gatehouse explain -- CMD`: how the shell classifier rates a command, and which rule or
// knowledge-base entry decided, so an operator can see why a command is asked about or approved.
import { Command } from 'commander';
import { analyzeShell } from '../../core/shell/index.js';
import { printJson } from '../context.js';
import { EXIT, UserError } from '../exit-codes.js';

/** `gatehouse explain [--cwd DIR] [--json] -- CMD…`. */
export function explainCommand(): Command {
  return new Command('explain')
    .description('show how the shell classifier rates a command (deny, approve or ask) and why')
    .argument('[command...]', 'the command line, after `--` (words are joined with spaces)')
    .option('--cwd <dir>', 'the folder the command would run in', process.cwd())
    .option('--json', 'print as JSON')
    .action((words: string[], flags: { cwd: string; json?: boolean }) => {
      const command = words.join(' ');
      if (command.trim() === '') throw new UserError('nothing to explain: give the command after `--`, as in `gatehouse explain -- git status`', EXIT.usage);
      const a = analyzeShell(command, { cwd: flags.cwd, protectedPaths: [] });
      if (flags.json) return printJson({ class: a.class, reason: a.reason, rule: a.rule, kb: a.kb ?? null, commands: a.commands });
      const lines = [`class: ${a.class}`, `reason: ${a.reason}`, `rule: ${a.rule}`, ...(a.kb ? [`knowledge base: ${a.kb}`] : [])];
      for (const c of a.commands) lines.push(`  ${c.class.padEnd(7)} ${c.argv.join(' ')}  (${c.rule}${c.kb ? `, ${c.kb}` : ''})`);
      process.stdout.write(`${lines.join('\n')}\n`);
    });
}
