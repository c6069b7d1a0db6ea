// The sandbox's costs, in one real `gatehouse run --sandbox --agent claude` session: inside
// it, the rendered PreToolUse hook (the perl socket client) is run the way Claude Code runs
// it, against `perl -e 0` in the same sandbox; meanwhile, outside, `/bin/true` is started
// directly and inside that session's own sandbox (its live spec, socket folder included).
import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { failed, metric, summarize } from './stats.mjs';
import { CLI, LIB_URL, makeWorktree, NODE, tempDir, track, within } from './common.mjs';

export const SANDBOX_METRICS = {
  direct: 'sandbox.baseline.true',
  start: 'sandbox.start.true',
  perl: 'sandbox.baseline.perl_e0',
  hook: 'sandbox.hook.pretooluse_allow',
};

const SESSION = 'bench-sandbox';
/** The program whose start is timed both ways: it does nothing, so all that differs is the sandbox. */
const TRUE = '/bin/true';
/** The whole session (both measurements and the end-of-session check) must end within this. */
const SESSION_TIMEOUT_MS = 300_000;
/** What the agent prints before its samples, so they stand out from anything else on stdout. */
const MARK = 'BENCH-SANDBOX ';

/**
 * The "agent": reads the hook command rendered into .claude/settings.local.json, runs it as
 * Claude Code does (`/bin/sh -c`, the event JSON on stdin) for an allowed Write in scope,
 * interleaved with `perl -e 0` run the same way; prints the samples, then waits for its stdin
 * to close (the bench times the sandbox start meanwhile, while the session is live).
 */
const AGENT = String.raw`
const { spawnSync } = require('node:child_process');
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const [runs, warmup] = process.argv.slice(1, 3).map(Number);
const transcript = process.argv[3];
const cwd = process.cwd();
const settings = JSON.parse(readFileSync(join(cwd, '.claude', 'settings.local.json'), 'utf8'));
const hook = (settings.hooks.PreToolUse || []).flatMap((g) => g.hooks || []).find((h) => /socket-hook\.pl/.test(h.command || ''));
const fail = (why) => { process.stdout.write('${MARK}' + JSON.stringify({ error: why }) + '\n'); process.exit(3); };
if (!hook) fail('no socket hook client rendered for PreToolUse: ' + JSON.stringify(settings.hooks));
const perl = hook.command.split(' ')[0];
const run = (command, input) => {
  const t0 = process.hrtime.bigint();
  const r = spawnSync('/bin/sh', ['-c', command], { cwd, input, encoding: 'utf8', timeout: 60000 });
  return { ms: Number(process.hrtime.bigint() - t0) / 1e6, r };
};
const out = { hook: [], perl: [] };
for (let i = 0; i < warmup + runs; i++) {
  const base = run(perl + ' -e 0', '');
  if (base.r.status !== 0) fail('perl -e 0 exited ' + base.r.status + ': ' + base.r.stderr);
  // Every call differs a little, as real calls do (identical calls in a row trip the tool-loop watchdog).
  const event = { session_id: '5f0c2a8e-bench-4c1d-9e7a-sandbox0sess', transcript_path: transcript, cwd, permission_mode: 'default', hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: join(cwd, 'src', 'file-' + i + '.ts'), content: '// revision ' + i + '\n' + 'x'.repeat(2000) + '\n' }, tool_use_id: 'toolu_s' + i };
  const call = run(hook.command, JSON.stringify(event));
  // Fail closed: only the supervisor's answer can be an allow (the refusal file is exit 2 or a deny).
  const text = call.r.stdout.trim();
  const denied = text.startsWith('{') && /"permissionDecision"\s*:\s*"(deny|ask)"|"decision"\s*:\s*"block"|"continue"\s*:\s*false/.test(text);
  if (call.r.status !== 0 || denied) fail('expected an allow: exit ' + call.r.status + '; stdout ' + text.slice(0, 200) + '; stderr ' + call.r.stderr.trim().slice(0, 300));
  if (i >= warmup) { out.hook.push(call.ms); out.perl.push(base.ms); }
}
process.stdout.write('${MARK}' + JSON.stringify(out) + '\n');
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
`;

/** An executable named `name` on PATH, or null. */
function onPath(name) {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    try {
      accessSync(join(dir, name), constants.X_OK);
      return join(dir, name);
    } catch {
      // not here
    }
  }
  return null;
}

/** Why no sandbox can be made here (the probe `gatehouse run --sandbox` makes, in short), or null. */
function unavailable() {
  if (process.platform !== 'linux') return `bubblewrap sandboxes are Linux only (this is ${process.platform})`;
  const bwrap = onPath('bwrap');
  if (bwrap === null) return 'bubblewrap (bwrap) is not on PATH';
  if (onPath('perl') === null) return 'perl (the hook client inside the sandbox) is not on PATH';
  const trial = spawnSync(bwrap, ['--unshare-user', '--unshare-pid', '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--', TRUE], { encoding: 'utf8', timeout: 10_000 });
  if (trial.status !== 0) return `bwrap cannot make a sandbox here (user namespaces off?): ${(trial.stderr || String(trial.error ?? '')).trim().slice(0, 200)}`;
  return null;
}

const nearestRank = (samples, q) => {
  const s = [...samples].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)];
};

/** Times `runs` starts of TRUE each way, interleaved, after `warmup` rounds. */
function timeStarts(spec, worktree, sandboxedArgv, runs, warmup) {
  const [bwrap, ...args] = sandboxedArgv(spec, worktree, [TRUE]);
  const once = (file, argv) => {
    const t0 = process.hrtime.bigint();
    const r = spawnSync(file, argv, { cwd: worktree, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8', timeout: 30_000 });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (r.status !== 0) throw new Error(`${file === TRUE ? TRUE : `${TRUE} in the sandbox`} exited ${r.status ?? r.signal}: ${(r.stderr || String(r.error ?? '')).trim().slice(0, 300)}`);
    return ms;
  };
  const direct = [];
  const sandboxed = [];
  for (let i = 0; i < warmup + runs; i++) {
    const d = once(TRUE, []);
    const s = once(bwrap, args);
    if (i >= warmup) {
      direct.push(d);
      sandboxed.push(s);
    }
  }
  return { direct, sandboxed };
}

/** Runs the session; resolves the agent's samples and the start-up samples taken while it ran. */
async function runSession({ base, worktree, runs, warmup, log }) {
  const { sandboxedArgv } = await import(LIB_URL);
  if (typeof sandboxedArgv !== 'function') throw new Error('dist/index.js does not export sandboxedArgv: rebuild (`npm run build`)');
  const state = join(base, 'state');
  const transcript = join(base, 'transcript.jsonl');
  writeFileSync(transcript, '');
  // A home and a state base of its own: the agent's data folders and the session index (whose
  // every state folder the sandbox hides, one mount each) are this session's alone.
  const home = join(base, 'home');
  mkdirSync(home, { recursive: true });
  const env = { ...process.env, HOME: home, GATEHOUSE_HOME: join(base, 'gatehouse-home') };
  const args = [
    CLI,
    'run',
    '--sandbox',
    '--agent',
    'claude',
    '--allow',
    'src/**',
    '--worktree',
    worktree,
    '--state-dir',
    state,
    '--id',
    SESSION,
    '--',
    NODE,
    '-e',
    AGENT,
    String(runs),
    String(warmup),
    transcript,
  ];
  const child = track(spawn(NODE, args, { cwd: worktree, env, stdio: ['pipe', 'pipe', 'pipe'] }));
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const agent = await new Promise((resolve, reject) => {
    child.stdout.on('data', (d) => {
      stdout += d;
      const line = stdout.split('\n').find((l) => l.startsWith(MARK));
      if (line !== undefined && stdout.includes(`${line}\n`)) resolve(JSON.parse(line.slice(MARK.length)));
    });
    void exited.then(({ code, signal }) => reject(new Error(`gatehouse run --sandbox exited ${code ?? signal} before the agent reported: ${stderr.trim().slice(-600)}`)));
  });
  if (agent.error) {
    child.stdin.end();
    throw new Error(`in the sandbox: ${agent.error}`);
  }
  log?.(`sandbox: ${runs} hook calls through the socket`);
  const policy = JSON.parse(readFileSync(join(state, 'sessions', SESSION, 'policy.json'), 'utf8'));
  const spec = policy.sandbox;
  if (!spec || !spec.socket_dir || !existsSync(spec.socket_dir)) throw new Error(`the live session has no sandbox with a socket folder: ${JSON.stringify(spec)}`);
  let starts;
  try {
    starts = timeStarts(spec, worktree, sandboxedArgv, runs, warmup);
  } finally {
    child.stdin.end();
  }
  const end = await exited;
  if (end.code !== 0) throw new Error(`gatehouse run --sandbox exited ${end.code ?? end.signal} (the end-of-session check should pass: the agent wrote nothing): ${stderr.trim().slice(-600)}`);
  log?.(`sandbox: ${runs} starts of ${TRUE} each way`);
  return { agent, starts, spec };
}

/**
 * The sandbox group; every metric is an error saying why when this machine cannot sandbox
 * (no bwrap, no perl, user namespaces off), as `gatehouse run --sandbox` itself refuses.
 */
export async function sandboxBench({ runs, warmup, log }) {
  const names = Object.values(SANDBOX_METRICS);
  const why = unavailable();
  if (why !== null) {
    log?.(`sandbox: skipped: ${why}`);
    return names.map((n) => failed(n, 'ms', `skipped: ${why}`));
  }
  const base = tempDir('gh-bench-sandbox-');
  const worktree = makeWorktree(join(base, 'wt'));
  const { agent, starts, spec } = await within(runSession({ base, worktree, runs, warmup, log }), SESSION_TIMEOUT_MS, () => {
    throw new Error(`the sandboxed session did not finish within ${SESSION_TIMEOUT_MS / 1000} s`);
  });
  const mounts = `${spec.writable.length} writable, ${spec.read_only.length} read-only, ${spec.hidden_dirs.length + spec.hidden_files.length} hidden paths`;
  const hookP95 = nearestRank(agent.hook, 0.95);
  const added = summarize(starts.sandboxed).median - summarize(starts.direct).median;
  return [
    metric(SANDBOX_METRICS.direct, 'ms', starts.direct, { note: `${TRUE} started directly (spawnSync), interleaved with the next` }),
    metric(SANDBOX_METRICS.start, 'ms', starts.sandboxed, {
      baselineOf: SANDBOX_METRICS.direct,
      targetChecks: [{ on: 'over', op: '<=', value: 50 }],
      note: `${TRUE} started inside the live session's sandbox (sandboxedArgv of its spec: bubblewrap ${spec.version}, ${mounts}, network ${spec.network}): adds ${added.toFixed(1)} ms`,
    }),
    metric(SANDBOX_METRICS.perl, 'ms', agent.perl, { note: "`perl -e 0` run as a command hook (/bin/sh -c) inside the sandbox: the socket client's floor" }),
    metric(SANDBOX_METRICS.hook, 'ms', agent.hook, {
      baselineOf: SANDBOX_METRICS.perl,
      p95: hookP95,
      targetChecks: [{ on: 'median', op: '<=', value: 10 }],
      note: `rendered PreToolUse hook (perl socket client → gatehouse run) inside the sandbox, allowed Write in scope; p95 ${hookP95.toFixed(2)} ms`,
    }),
  ];
}
