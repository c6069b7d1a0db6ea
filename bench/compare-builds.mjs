// Two builds side by side on one noisy machine: the cold hook (PreToolUse allow and block, and a
// Stop with one required check), the warm hook (allow and block) and the approval round trip
// (warm and command transports), each build with its own sessions and supervisors, all cases
// interleaved call by call so that load drift hits both builds alike. Each metric has both
// medians and the median of the per-round differences (new − old), the steadier of the two.
// Usage: node bench/compare-builds.mjs OLD_ROOT NEW_ROOT [--runs N]   (each root built, with bench/)
import { spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const USAGE = 'usage: node bench/compare-builds.mjs OLD_ROOT NEW_ROOT [--runs N]';
/** Rounds by default: enough for a median that moves less than the noise on a shared 2-core machine. */
const DEFAULT_RUNS = 60;
/** Rounds thrown away first: JIT warm-up, first-touch of the state folders. */
const WARMUP = 5;
/** How long a hook waits before it is answered, as while a person reads the request (watchers set up). */
const SETTLE_MS = 150;

const [oldRoot, newRoot, ...rest] = process.argv.slice(2);
if (!oldRoot || !newRoot) throw new Error(USAGE);
const runs = rest[0] === '--runs' ? Number(rest[1]) : DEFAULT_RUNS;
if (!Number.isInteger(runs) || runs < 1) throw new Error(USAGE);

/** Each root's own bench library: its CLI constant points at that root's dist/. */
const libOf = (root) => import(pathToFileURL(join(resolve(root), 'bench', 'lib', 'common.mjs')).href);

const writeEvent = (cwd, file, i) =>
  JSON.stringify({
    session_id: 'cmp',
    cwd,
    permission_mode: 'default',
    hook_event_name: 'PreToolUse',
    tool_name: 'Write',
    tool_input: { file_path: join(cwd, file), content: `// revision ${i}\n${'x'.repeat(2000)}\n` },
    tool_use_id: `toolu_w${i}`,
  });
const askEvent = (cwd, i) =>
  JSON.stringify({
    session_id: 'cmp',
    cwd,
    permission_mode: 'default',
    hook_event_name: 'PreToolUse',
    tool_name: 'Bash',
    tool_input: { command: 'npm run build', description: `Build (${i})` },
    tool_use_id: `toolu_a${i}`,
  });

const stopEvent = (cwd) => JSON.stringify({ session_id: 'cmp', cwd, permission_mode: 'default', hook_event_name: 'Stop', stop_hook_active: false, last_assistant_message: 'done' });

async function setUp(name, lib) {
  const base = lib.tempDir(`gh-cmp-${name}-`);
  // Cold: a Node process per call (`--transport command`), the Stop with one required check.
  const coldWt = lib.makeWorktree(join(base, 'cold'));
  const marker = join(base, 'cold-check-ran');
  const cold = lib.startSession({ worktree: coldWt, stateDir: join(base, 'cold-state'), id: 'cmp-cold', require: [`ok=touch ${marker}`], transport: 'command' });
  const hookWt = lib.makeWorktree(join(base, 'hook'));
  const hookSup = await lib.startSupervisor(hookWt, join(base, 'hook-state'));
  const warm = lib.startSession({ worktree: hookWt, stateDir: join(base, 'hook-state'), id: 'cmp-warm', transport: 'warm' });
  const approvals = {};
  for (const transport of ['warm', 'command']) {
    const wt = lib.makeWorktree(join(base, `ap-${transport}`));
    writeFileSync(join(wt, 'gatehouse.yaml'), 'approvals:\n  interactive: true\n  timeout_seconds: 120\n');
    const state = join(base, `ap-${transport}-state`);
    const supervisor = await lib.startSupervisor(wt, state);
    const hooks = lib.startSession({ worktree: wt, stateDir: state, id: `cmp-ap-${transport}`, transport });
    approvals[transport] = { wt, supervisor, hooks, session: `cmp-ap-${transport}` };
  }
  return { name, lib, coldWt, cold, marker, hookWt, warm, supervisors: [hookSup, approvals.warm.supervisor, approvals.command.supervisor], approvals };
}

/** One approval: the hook asks, the queue shows it, the POST resolves it; ms from POST sent to hook exit. */
async function approvalTrip(side, transport, i) {
  const { lib } = side;
  const a = side.approvals[transport];
  const auth = { authorization: `Bearer ${a.supervisor.token}` };
  const child = lib.track(spawn('/bin/sh', ['-c', a.hooks.PreToolUse.command], { cwd: a.wt, stdio: ['pipe', 'ignore', 'ignore'] }));
  const exited = new Promise((r) => child.once('exit', (code) => r({ at: process.hrtime.bigint(), code })));
  child.stdin.end(askEvent(a.wt, i));
  let pending;
  for (let tries = 0; ; tries++) {
    const q = await lib.http('GET', `${a.supervisor.origin}/approvals/queue?session=${a.session}`, { headers: auth });
    if (q.json?.pending?.length > 0) {
      pending = q.json.pending[0];
      break;
    }
    if (tries > 2000) throw new Error(`${side.name} ${transport}: no pending approval appeared`);
    await lib.sleep(10);
  }
  await lib.sleep(SETTLE_MS);
  const t0 = process.hrtime.bigint();
  const r = await lib.http('POST', `${a.supervisor.origin}/approvals/${pending.id}/resolve`, { body: { decision: 'allow', nonce: pending.nonce, reason: null }, headers: auth });
  if (r.status !== 200) throw new Error(`${side.name} ${transport}: resolve answered ${r.status}`);
  const done = await exited;
  if (done.code !== 0) throw new Error(`${side.name} ${transport}: the approved hook exited ${done.code}`);
  return Number(done.at - t0) / 1e6;
}

function hookCall(side, file, expect, i, how = 'warm') {
  const wt = how === 'warm' ? side.hookWt : side.coldWt;
  const r = side.lib.runHookCommand(side[how].PreToolUse.command, writeEvent(wt, file, i), { cwd: wt });
  if (r.status !== expect) throw new Error(`${side.name}: ${how} hook on ${file} exited ${r.status}, expected ${expect}: ${r.stderr.slice(0, 200)}`);
  return r.ms;
}

function coldStop(side) {
  rmSync(side.marker, { force: true });
  const r = side.lib.runHookCommand(side.cold.Stop.command, stopEvent(side.coldWt), { cwd: side.coldWt });
  if (r.status !== 0) throw new Error(`${side.name}: the cold Stop exited ${r.status}: ${r.stderr.slice(0, 200)}`);
  return r.ms;
}

const CASES = {
  'hook.cold.pretooluse_allow': (s, i) => hookCall(s, `src/f-${i}.ts`, 0, i, 'cold'),
  'hook.cold.pretooluse_block': (s, i) => hookCall(s, 'package.json', 2, i, 'cold'),
  'hook.cold.stop': (s) => coldStop(s),
  'hook.warm.pretooluse_allow': (s, i) => hookCall(s, `src/f-${i}.ts`, 0, i),
  'hook.warm.pretooluse_block': (s, i) => hookCall(s, 'package.json', 2, i),
  'approval.round_trip_warm': (s, i) => approvalTrip(s, 'warm', i),
  'approval.round_trip': (s, i) => approvalTrip(s, 'command', i),
};

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const sides = [await setUp('old', await libOf(oldRoot)), await setUp('new', await libOf(newRoot))];
const samples = Object.fromEntries(sides.map((s) => [s.name, Object.fromEntries(Object.keys(CASES).map((c) => [c, []]))]));
try {
  for (let round = 0; round < WARMUP + runs; round++) {
    for (const [name, run] of Object.entries(CASES)) {
      // Alternate which build goes first, so neither always runs on a cache the other warmed.
      for (const side of round % 2 ? [...sides].reverse() : sides) {
        const ms = await run(side, round);
        if (round >= WARMUP) samples[side.name][name].push(ms);
      }
    }
    if ((round + 1) % 10 === 0) process.stderr.write(`compare: ${round + 1}/${WARMUP + runs} rounds\n`);
  }
} finally {
  for (const s of sides) for (const sup of s.supervisors) await sup.stop();
  sides[0].lib.cleanup();
  sides[1].lib.cleanup();
}
const rows = Object.keys(CASES).map((name) => {
  const o = median(samples.old[name]);
  const n = median(samples.new[name]);
  // Both builds ran this case in the same round, seconds apart: their difference cancels the load of that moment.
  const paired = median(samples.new[name].map((x, i) => x - samples.old[name][i]));
  return {
    metric: name,
    old_median_ms: Number(o.toFixed(2)),
    new_median_ms: Number(n.toFixed(2)),
    change_pct: Number((((n - o) / o) * 100).toFixed(1)),
    paired_change_ms: Number(paired.toFixed(2)),
    runs,
  };
});
process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
process.exit(0);
