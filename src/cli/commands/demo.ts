// `gatehouse demo`: a self-contained tour. It makes a throwaway project, then runs a small
// scripted agent under `gatehouse run` that drives the real rendered hooks the way Claude Code does.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { shellJoin } from '../../core/shell-quote.js';

const BUGGY = 'export function add(a, b) {\n  return a - b;\n}\n';
const FIXED = 'export function add(a, b) {\n  return a + b;\n}\n';
const TEST = "import { add } from './src/math.js';\nif (add(2, 3) !== 5) { console.error(`add(2, 3) returned ${add(2, 3)}, expected 5`); process.exit(1); }\nconsole.log('ok');\n";

// The scripted agent: it calls the hooks rendered in .claude/settings.local.json exactly as
// Claude Code would (command through sh, hook JSON on stdin, exit 2 = refused, stderr = reason).
const AGENT = `import { readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
const cwd = process.cwd();
const hooks = JSON.parse(readFileSync('.claude/settings.local.json', 'utf8')).hooks;
const cmd = (event) => hooks[event].at(-1).hooks[0].command;
function hook(event, payload) {
  const r = spawnSync('sh', ['-c', cmd(event)], { input: JSON.stringify({ hook_event_name: event, cwd, session_id: 'demo', ...payload }), encoding: 'utf8' });
  return { refused: r.status === 2, reason: r.stderr.trim() };
}
function write(file, content) {
  const r = hook('PreToolUse', { tool_name: 'Write', tool_input: { file_path: join(cwd, file), content } });
  if (r.refused) { console.log('agent> Write ' + file + '  -> REFUSED by the write gate:\\n    ' + r.reason + '\\n'); return; }
  writeFileSync(file, content);
  console.log('agent> Write ' + file + '  -> allowed, written\\n');
}
function stop() {
  const r = hook('Stop', { last_assistant_message: 'Done.' });
  console.log(r.refused ? 'agent> "I am done"  -> REFUSED by the completion gate:\\n    ' + r.reason.split('\\n').join('\\n    ') + '\\n' : 'agent> "I am done"  -> allowed: the required checks pass\\n');
  return !r.refused;
}
stop();
write('package.json', '{"name": "tampered"}');
write('src/math.js', ${JSON.stringify(FIXED)});
stop();
`;

/** `gatehouse demo`. */
export function demoCommand(): Command {
  return new Command('demo')
    .description('run a scripted agent in a throwaway project to see the write gate and the completion gate at work')
    .option('--keep', 'keep the demo project folder afterwards')
    .action((flags: { keep?: boolean }) => {
      const base = realpathSync(mkdtempSync(join(tmpdir(), 'gatehouse-demo-')));
      const project = join(base, 'project');
      mkdirSync(join(project, 'src'), { recursive: true });
      writeFileSync(join(project, 'src', 'math.js'), BUGGY);
      writeFileSync(join(project, 'test.js'), TEST);
      writeFileSync(join(project, 'package.json'), '{"name": "demo", "type": "module"}\n');
      writeFileSync(join(project, 'agent.mjs'), AGENT);
      process.stdout.write(`Demo project: ${project}\nTask policy: the agent may write src/** only, and "node test.js" must pass before it may finish.\n\n`);
      const cli = fileURLToPath(new URL('./cli.js', import.meta.url));
      const r = spawnSync(
        process.execPath,
        [
          cli,
          'run',
          '--agent',
          'claude',
          '--worktree',
          project,
          '--state-dir',
          join(base, 'state'),
          '--allow',
          'src/**',
          '--require',
          `test=${shellJoin([process.execPath, 'test.js'])}`,
          '--',
          process.execPath,
          'agent.mjs',
        ],
        { stdio: 'inherit' },
      );
      process.stdout.write(`\ngatehouse run exited with ${r.status}.\n`);
      if (flags.keep) process.stdout.write(`Kept ${base}\n`);
      else rmSync(base, { recursive: true, force: true });
      process.exitCode = r.status ?? 1;
    });
}
