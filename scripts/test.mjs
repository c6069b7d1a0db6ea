// `npm test`: the pinned agent CLIs first (scripts/install-agents.mjs), then the static checks
// (scripts/lint.mjs) and the test run (vitest) side by side. On 2 cores the tests leave part of the
// CPU idle (real agents starting, timers), and the checks use it. The checks' report is printed
// between two lines of the tests' output once they end. The run's closing line stays the tests'
// `N passed, N failed`, with the checks' failure added to it when one failed. The exit code is 1
// when either failed.
// Usage: node scripts/test.mjs [vitest arguments]  (npm test [-- vitest arguments])
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const root = join(import.meta.dirname, '..');
const script = (name) => join(root, 'scripts', name);

const agents = spawnSync(process.execPath, [script('install-agents.mjs')], { cwd: root, stdio: 'inherit' });
if (agents.status !== 0) process.exit(agents.status ?? 1);
// Exit codes are set, never forced with process.exit: on a pipe that is not synchronous (macOS),
// that could cut off the last lines written.

/**
 * Runs `args` with its stdout piped to `onLine` line by line (and its stderr too, unless
 * `stderr` is 'inherit'); resolves with its exit code (1 on a signal or a failed start).
 */
function start(args, onLine, stderr = 'pipe') {
  const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', stderr] });
  for (const stream of [child.stdout, child.stderr]) if (stream) createInterface({ input: stream, crlfDelay: Infinity }).on('line', onLine);
  return new Promise((resolve) => {
    child.on('error', (err) => {
      onLine(`test: ${args[0]} could not start: ${err.message}`);
      resolve(1);
    });
    child.on('close', (code) => resolve(code ?? 1));
  });
}

const write = (line) => process.stdout.write(`${line}\n`);
const lintLines = [];
let testsDone = false;
let lintCode = null;
const lint = start([script('lint.mjs')], (line) => lintLines.push(line)).then((code) => {
  lintCode = code;
  // Whole lines only, so the report never splits a line of the tests' output.
  if (!testsDone) for (const line of lintLines) write(line);
});
let lastLine = '';
// Its stderr goes straight through: only its stdout holds the closing line.
const tests = await start(
  [join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run', ...process.argv.slice(2)],
  (line) => {
    write(line);
    // eslint-disable-next-line no-control-regex -- terminal escapes are exactly what is stripped
    if (line.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').trim() !== '') lastLine = line;
  },
  'inherit',
);
testsDone = true;
if (lintCode === null) {
  // The tests ended first: the checks' report, then the closing line again, so that it stays last.
  await lint;
  for (const line of lintLines) write(line);
  write(lintCode === 0 ? lastLine : `${lastLine}; lint FAILED`);
} else if (lintCode !== 0) write(`${lastLine}; lint FAILED`);
process.exitCode = lintCode !== 0 ? 1 : tests;
