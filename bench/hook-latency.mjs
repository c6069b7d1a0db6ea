// Hook latency as the agent feels it: whole-process wall time of the hook bundle for a
// PreToolUse allow and block, against `node -e 0` measured in the same run, interleaved.
// Usage: node bench/hook-latency.mjs [--runs N]
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const runsArg = process.argv.indexOf('--runs');
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 40;
const WARMUP = 5;
const CLI = resolve('dist/cli.js');
const HOOK = resolve('dist/hook/hook.js');

const base = realpathSync(mkdtempSync(join(tmpdir(), 'gh-bench-')));
const root = join(base, 'repo');
const state = join(base, 'state');
mkdirSync(join(root, 'src'), { recursive: true });
const started = spawnSync(process.execPath, [CLI, 'session', 'start', '--agent', 'claude', '--worktree', root, '--state-dir', state, '--allow', 'src/**', '--id', 'bench'], { encoding: 'utf8' });
if (started.status !== 0) {
  console.error(started.stderr);
  process.exit(1);
}

const hookArgs = [HOOK, 'check', '--session', 'bench', '--event', 'PreToolUse', '--state-dir', state, '--agent', 'claude'];
const payload = (file) => JSON.stringify({ session_id: 'x', hook_event_name: 'PreToolUse', cwd: root, tool_name: 'Write', tool_input: { file_path: join(root, file), content: 'x'.repeat(2000) } });
const cases = [
  { name: 'node -e 0 (baseline)', args: ['-e', '0'], input: '', expect: 0 },
  { name: 'PreToolUse allow', args: hookArgs, input: payload('src/a.ts'), expect: 0 },
  { name: 'PreToolUse block', args: hookArgs, input: payload('package.json'), expect: 2 },
];

function once(c) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, c.args, { input: c.input, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== c.expect) throw new Error(`${c.name}: exit ${r.status}, expected ${c.expect}: ${r.stderr}`);
  return ms;
}

for (let i = 0; i < WARMUP; i++) for (const c of cases) once(c);
const samples = cases.map(() => []);
// Interleaved so that drift in machine load hits every case alike.
for (let i = 0; i < RUNS; i++) cases.forEach((c, k) => samples[k].push(once(c)));

const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return { median: q(0.5), p90: q(0.9), min: s[0], max: s.at(-1) };
};
const results = cases.map((c, k) => ({ name: c.name, ...stats(samples[k]) }));
const baseline = results[0].median;
console.log(`hook latency, ${RUNS} runs each after ${WARMUP} warm-up, node ${process.version}`);
console.log('case                       median     p90      min      max    ratio vs node -e 0');
for (const r of results) {
  const f = (x) => `${x.toFixed(1).padStart(7)}`;
  console.log(`${r.name.padEnd(24)} ${f(r.median)}  ${f(r.p90)}  ${f(r.min)}  ${f(r.max)}    ${(r.median / baseline).toFixed(2)}x`);
}
const target = 1.3;
const worst = Math.max(results[1].median, results[2].median) / baseline;
console.log(`target: PreToolUse median <= ${target}x baseline; measured ${worst.toFixed(2)}x (${worst <= target ? 'met' : 'NOT met'})`);
spawnSync(process.execPath, [CLI, 'session', 'end', 'bench', '--worktree', root, '--state-dir', state]);
rmSync(base, { recursive: true, force: true });
