// The project's static checks (ESLint, the type check, knip, Prettier), all started at once:
// one after another they took about 65 s on 2 cores, mostly one core each. Each check's output
// is printed whole when it ends; the exit code is 1 when any of them failed.
// Usage: node scripts/lint.mjs  (npm run lint)
import { spawn } from 'node:child_process';
import { join } from 'node:path';

const bin = (name) => join(import.meta.dirname, '..', 'node_modules', '.bin', name);

const CHECKS = [
  ['eslint', [bin('eslint'), '.']],
  ['tsc', [bin('tsc'), '--noEmit']],
  ['knip', [bin('knip'), '--no-progress']],
  ['prettier', [bin('prettier'), '--check', '--log-level', 'warn', 'src/**/*.{ts,tsx}', 'test/**/*.{ts,tsx}', 'bench/**/*.mjs', 'scripts/**/*.mjs', '*.{js,ts,mjs}']],
];

function run([name, [cmd, ...args]]) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(cmd, args, { cwd: join(import.meta.dirname, '..'), stdio: ['ignore', 'pipe', 'pipe'] });
    const out = [];
    child.stdout.on('data', (d) => out.push(d));
    child.stderr.on('data', (d) => out.push(d));
    child.on('error', (err) => resolve({ name, code: 1, text: `${err.message}\n`, seconds: 0 }));
    child.on('close', (code, signal) => resolve({ name, code: code ?? (signal ? 1 : 0), text: Buffer.concat(out).toString(), seconds: (Date.now() - started) / 1000 }));
  });
}

const results = await Promise.all(CHECKS.map(run));
for (const r of results) {
  if (r.text.trim() !== '') process.stdout.write(r.text.endsWith('\n') ? r.text : `${r.text}\n`);
  process.stdout.write(`lint: ${r.name} ${r.code === 0 ? 'passed' : `FAILED (exit ${r.code})`} in ${r.seconds.toFixed(1)} s\n`);
}
process.exitCode = results.some((r) => r.code !== 0) ? 1 : 0;
