// Scale curves: how the cost grows with the work. Hook latency against the allowlist's size,
// the Stop's scope check against the worktree's size, audit verify and append against the log's
// size, and the approval round trip against how many others are pending. Each point is a metric
// (`scale.<curve>.<size>`); `curves()` turns them into one SVG plot per curve (bench/lib/plot.mjs).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { failed, metric } from './stats.mjs';
import { LIB_URL, NODE, makeWorktree, processes, runHookCommand, shq, startSession, startSupervisor, tempDir } from './common.mjs';
import { startHook } from './approval.mjs';
import { AUDIT_EVENT, fillAuditLog } from './audit.mjs';
import { gatehouse, http, sleep, within } from './common.mjs';

const BASELINE = 'scale.baseline.node_e0';

/** The curves: id, title, axis labels, the metric name of each size. */
const CURVES = {
  allowlist: { title: 'cold PreToolUse allow vs allowlist size', xLabel: 'allow patterns', yLabel: '× `node -e 0` (median ratio)', ratio: true, name: (n) => `scale.hook_allow.patterns_${n}` },
  worktree: { title: 'cold Stop (scope check) vs worktree size', xLabel: 'files in the worktree', yLabel: '× `node -e 0` (median ratio)', ratio: true, name: (n) => `scale.stop_scope.files_${n}` },
  verify: { title: 'audit verify vs log size', xLabel: 'events in the log', yLabel: 'ms (median)', name: (n) => `scale.audit_verify.events_${n}` },
  append: { title: 'audit append (in process) vs log size', xLabel: 'events in the log', yLabel: 'µs per append (median)', name: (n) => `scale.audit_append.events_${n}` },
  warmStop: {
    title: "warm Stop: the supervisor's own time vs worktree size",
    xLabel: 'files in the worktree',
    yLabel: 'ms (median, server side)',
    name: (n) => `scale.warm_stop_supervisor.files_${n}`,
  },
  approvals: { title: 'approval round trip vs other pending approvals', xLabel: 'other pending approvals', yLabel: 'ms (median)', name: (n) => `scale.approval_round_trip.pending_${n}` },
};

const event = (cwd, name, extra) => JSON.stringify({ session_id: 'claude-scale', transcript_path: join(cwd, '.transcript.jsonl'), cwd, permission_mode: 'default', hook_event_name: name, ...extra });

/** Median-of-`runs` cold hook calls, interleaved with the `node -e 0` baseline. */
function timeHook(command, input, cwd, runs, check) {
  const samples = [];
  const base = [];
  for (let i = 0; i < runs + 1; i++) {
    const r = runHookCommand(command, typeof input === 'function' ? input(i) : input, { cwd });
    check(r);
    const b = runHookCommand(`${shq(NODE)} -e 0`, '', { cwd });
    if (i > 0) {
      samples.push(r.ms);
      base.push(b.ms);
    }
  }
  return { samples, base };
}

/** Hook latency vs allowlist size: a write inside the last of N patterns (the worst case). */
function allowlistCurve(sizes, runs, log) {
  const out = [];
  const base = [];
  for (const n of sizes) {
    const name = CURVES.allowlist.name(n);
    try {
      const dir = tempDir(`gh-bench-scale-allow-${n}-`);
      const wt = makeWorktree(join(dir, 'wt'));
      const allow = [...Array.from({ length: n - 1 }, (_, i) => `lib${i}/**/*.ts`), 'src/**'];
      writeFileSync(join(wt, 'gatehouse.yaml'), `gate:\n  allow:\n${allow.map((a) => `    - ${JSON.stringify(a)}`).join('\n')}\n`);
      const hooks = startSession({ worktree: wt, stateDir: join(dir, 'state'), id: `bench-scale-allow-${n}`, allow: [], transport: 'command' });
      const input = (i) => event(wt, 'PreToolUse', { tool_name: 'Write', tool_input: { file_path: join(wt, 'src', `f${i}.ts`), content: 'x\n' }, tool_use_id: `toolu_s${i}` });
      const r = timeHook(hooks.PreToolUse.command, input, wt, runs, (x) => {
        if (x.status !== 0) throw new Error(`the in-scope write was not allowed with ${n} patterns: exit ${x.status} ${x.stderr.slice(0, 200)}`);
      });
      base.push(...r.base);
      out.push(metric(name, 'ms', r.samples, { baselineOf: BASELINE, note: `cold hook process, ${n} allow pattern${n === 1 ? '' : 's'}, the write matching the last` }));
    } catch (err) {
      out.push(failed(name, 'ms', err, { baselineOf: BASELINE }));
    }
    log(`scale: allowlist ${n} done`);
  }
  return { out, base };
}

/** A git worktree of `n` small files in folders of 100, committed. */
function bigWorktree(dir, n) {
  const wt = makeWorktree(dir);
  for (let d = 0; d * 100 < n; d++) {
    const folder = join(wt, 'lib', `m${d}`);
    mkdirSync(folder, { recursive: true });
    for (let i = 0; i < 100 && d * 100 + i < n; i++) writeFileSync(join(folder, `f${i}.ts`), `export const v${i} = ${d * 100 + i};\n`);
  }
  const git = (...a) => execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@example.invalid', '-c', 'commit.gpgsign=false', ...a], { cwd: wt, stdio: 'ignore' });
  git('add', '-A');
  git('commit', '-q', '-m', 'files');
  return wt;
}

/** Targets of the supervisor's own time per warm Stop: ≤ 5 ms at 1,000 files, ≤ 20 ms at 50,000. */
const WARM_STOP_TARGET = { 1_000: 5, 50_000: 20 };
/**
 * The warm Stops start this long after the session: the supervisor keeps its parsed baseline only
 * once the file is older than the racy margin (2 s), as it is by an agent's first Stop.
 */
const SESSION_AGE_MS = 2_200;
/** A warm Stop costs the bench one hook process, so it takes at least this many samples. */
const WARM_RUNS_MIN = 20;

/**
 * The same worktree under a warm session: the supervisor's own time per Stop (GET
 * /api/hooks/stats), with no required check, so the scope check and the chain are all it does.
 */
async function warmStop(wt, dir, n, runs) {
  const state = join(dir, 'warm-state');
  const name = CURVES.warmStop.name(n);
  const target = WARM_STOP_TARGET[n] === undefined ? {} : { targetChecks: [{ on: 'median', op: '<=', value: WARM_STOP_TARGET[n] }] };
  // The cold session's hooks out first: one session's hooks per settings file.
  gatehouse(['session', 'end', `bench-scale-tree-${n}`, '--worktree', wt, '--state-dir', join(dir, 'state')]);
  let supervisor = null;
  try {
    supervisor = await startSupervisor(wt, state);
    const hooks = startSession({ worktree: wt, stateDir: state, id: `bench-scale-warm-${n}`, transport: 'warm' });
    const input = event(wt, 'Stop', { stop_hook_active: false, last_assistant_message: 'done' });
    await sleep(SESSION_AGE_MS);
    const stats = async () => (await http('GET', `${supervisor.origin}/api/hooks/stats`, { headers: { authorization: `Bearer ${supervisor.token}` } })).json?.samples_us ?? [];
    const samples = [];
    let first = 0;
    for (let i = 0; i < Math.max(runs, WARM_RUNS_MIN) + 1; i++) {
      const before = (await stats()).length;
      const r = runHookCommand(hooks.Stop.command, input, { cwd: wt });
      if (r.status !== 0) throw new Error(`the warm Stop was refused: exit ${r.status} ${r.stderr.trim().slice(0, 1200)}`);
      const after = await stats();
      if (after.length !== before + 1) throw new Error('the Stop was not answered by the supervisor');
      if (i > 0) samples.push(after.at(-1) / 1000);
      else first = after.at(-1) / 1000;
    }
    const note = `supervisor's time per warm Stop, ${n.toLocaleString('en-US')} files, no required check; the session's first Stop (walks everything and sets up the worktree watch): ${first.toFixed(1)} ms`;
    return metric(name, 'ms', samples, { ...target, note });
  } catch (err) {
    return failed(name, 'ms', err, target);
  } finally {
    await supervisor?.stop();
  }
}

/** The Stop's scope check vs worktree size: a cold Stop with no required check, one file changed in scope. */
async function worktreeCurve(sizes, runs, log) {
  const out = [];
  const base = [];
  for (const n of sizes) {
    const name = CURVES.worktree.name(n);
    try {
      const dir = tempDir(`gh-bench-scale-tree-${n}-`);
      const wt = bigWorktree(join(dir, 'wt'), n);
      writeFileSync(join(wt, '.transcript.jsonl'), `${JSON.stringify({ type: 'user', message: { role: 'user', content: 'go' } })}\n`);
      const hooks = startSession({ worktree: wt, stateDir: join(dir, 'state'), id: `bench-scale-tree-${n}`, transport: 'command' });
      writeFileSync(join(wt, 'src', 'index.ts'), 'export const answer = 43;\n');
      const input = event(wt, 'Stop', { stop_hook_active: false, last_assistant_message: 'done' });
      const r = timeHook(hooks.Stop.command, input, wt, runs, (x) => {
        if (x.status !== 0) throw new Error(`the Stop was refused with ${n} files: exit ${x.status} ${x.stderr.trim().slice(0, 1200)}`);
      });
      base.push(...r.base);
      out.push(metric(name, 'ms', r.samples, { baselineOf: BASELINE, note: `cold Stop hook, ${n.toLocaleString('en-US')} committed files, no required check` }));
      out.push(await warmStop(wt, dir, n, runs));
    } catch (err) {
      out.push(failed(name, 'ms', err, { baselineOf: BASELINE }));
    }
    log(`scale: worktree ${n} done`);
  }
  return { out, base };
}

/** Audit append and verify vs log size: one log grown to each size in turn, verified at each. */
async function auditCurves(sizes, log) {
  const { AuditLog, verifyAudit, loadOrCreateKey } = await import(LIB_URL);
  const dir = tempDir('gh-bench-scale-audit-');
  const auditLog = new AuditLog(join(dir, 'log'));
  const key = loadOrCreateKey(dir);
  const out = [];
  let size = 0;
  for (const n of sizes) {
    const perAppend = [];
    try {
      // Grown in bulk to 10,000 short of the size, then event by event: the last 10 batches of 1,000
      // are the measured ones.
      if (size < n - 10_000) {
        fillAuditLog(auditLog, key, size, n - 10_000);
        size = n - 10_000;
      }
      let t0 = process.hrtime.bigint();
      for (; size < n; size++) {
        auditLog.append(AUDIT_EVENT(size));
        if ((size + 1) % 1_000 === 0) {
          perAppend.push(Number(process.hrtime.bigint() - t0) / 1e3 / 1_000);
          if ((size + 1) % 10_000 === 0) auditLog.checkpoint(key);
          t0 = process.hrtime.bigint();
        }
      }
      // The last 10 batches: the cost of an append once the log is this large.
      out.push(metric(CURVES.append.name(n), 'µs', perAppend.slice(-10), { note: `in-process append, log at ${n.toLocaleString('en-US')} events` }));
      const ms = [];
      for (let r = 0; r < 3; r++) {
        const t1 = process.hrtime.bigint();
        const report = await verifyAudit(join(dir, 'log'), [key.publicKey]);
        ms.push(Number(process.hrtime.bigint() - t1) / 1e6);
        if (!report.ok || report.events !== n) throw new Error(`verify failed at ${n}: ${report.problems?.[0] ?? `${report.events} events`}`);
      }
      out.push(metric(CURVES.verify.name(n), 'ms', ms, { note: `verifyAudit of ${n.toLocaleString('en-US')} events, a signed checkpoint every 10,000` }));
    } catch (err) {
      out.push(failed(CURVES.append.name(n), 'µs', err), failed(CURVES.verify.name(n), 'ms', err));
    }
    log(`scale: audit ${n} done`);
  }
  return out;
}

/** The approval round trip with `n` other calls of another session waiting in the same queue. */
async function approvalCurve(sizes, runs, waitSeconds, log) {
  const out = [];
  const dir = tempDir('gh-bench-scale-approvals-');
  const wt = makeWorktree(join(dir, 'wt'));
  const state = join(dir, 'state');
  writeFileSync(join(wt, 'gatehouse.yaml'), 'approvals:\n  interactive: true\n  timeout_s: 600\n');
  const ask = (cwd, session, i) =>
    JSON.stringify({
      session_id: `claude-${session}`,
      cwd,
      permission_mode: 'default',
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'npm run build', description: `build ${i}` },
      tool_use_id: `toolu_${session}_${i}`,
    });
  let supervisor = null;
  const waiting = [];
  try {
    supervisor = await startSupervisor(wt, state);
    const auth = { authorization: `Bearer ${supervisor.token}` };
    const session = 'bench-scale-approvals';
    const hooks = startSession({ worktree: wt, stateDir: state, id: session, transport: 'command' });
    const queue = async () => {
      const q = await http('GET', `${supervisor.origin}/approvals/queue?session=${session}`, { headers: auth, timeout: 60_000 });
      if (q.status !== 200) throw new Error(`GET /approvals/queue answered ${q.status}`);
      return q.json.pending;
    };
    for (const n of sizes) {
      const name = CURVES.approvals.name(n);
      try {
        // Ten at a time, each batch pending before the next starts: 100 cold starts at once would only measure the machine.
        const until = Date.now() + 120_000;
        while (waiting.length < n) {
          const batch = Math.min(n, waiting.length + 10);
          while (waiting.length < batch) waiting.push(startHook(hooks.PreToolUse.command, ask(wt, session, `bg-${waiting.length}`), wt));
          while ((await queue()).length < batch) {
            if (Date.now() > until) throw new Error(`fewer than ${batch} background approvals became pending within 120 s`);
            await sleep(50);
          }
        }
        const samples = [];
        for (let i = 0; i < runs + 1; i++) {
          const marker = `fg-${n}-${i}`;
          const hook = startHook(hooks.PreToolUse.command, ask(wt, session, marker), wt);
          let pending;
          const deadline = Date.now() + 60_000;
          while ((pending = (await queue()).find((p) => JSON.stringify(p).includes(marker))) === undefined) {
            if (hook.child.exitCode !== null || Date.now() > deadline) throw new Error('the measured call never became pending');
            await sleep(10);
          }
          await sleep(150);
          const t0 = process.hrtime.bigint();
          const r = await http('POST', `${supervisor.origin}/approvals/${pending.id}/resolve`, { body: { decision: 'allow', nonce: pending.nonce, reason: null }, headers: auth });
          if (r.status !== 200) throw new Error(`resolve answered ${r.status}`);
          const done = await within(hook.exited, 30_000, () => null);
          if (done === null || done.code !== 0) throw new Error('the approved hook did not exit 0 within 30 s');
          if (i > 0) samples.push(Number(done.at - t0) / 1e6);
        }
        out.push(metric(name, 'ms', samples, { note: `POST resolve → waiting hook exited, with ${n} other calls pending in the queue` }));
      } catch (err) {
        out.push(failed(name, 'ms', err));
      }
      log(`scale: approvals with ${n} pending done`);
    }
    out.push(await waitingCpu(state, waiting.length, waitSeconds));
  } finally {
    for (const w of waiting) w.child.kill('SIGKILL');
    await supervisor?.stop();
  }
  return out;
}

/** The metric of {@link waitingCpu}. */
const WAITING_CPU = 'scale.approval_waiting_hooks_cpu';

/** What /proc/PID/stat counts CPU time in on Linux (USER_HZ). */
const TICKS_PER_SECOND = 100;

/** Clock ticks (user + system) a process has used, or null once it is gone. */
function cpuTicks(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return null;
  }
}

/**
 * What the hooks left waiting on a person cost the machine while nobody answers: their CPU over
 * a few seconds, as a share of one core (the kernel's per-process counters, charged a tick at a
 * time: read as a sum over many processes and seconds). Each waits on fs.watch, with a poll as the backstop.
 */
async function waitingCpu(state, n, seconds) {
  try {
    // The hooks' own processes (`node …/hook.js check …`), not the shells that started them.
    const pids = processes()
      .filter((p) => p.args[1]?.endsWith('hook.js') === true && p.args.some((a) => a.startsWith(state)))
      .map((p) => p.pid);
    if (pids.length < n) throw new Error(`${pids.length} of ${n} waiting hooks found`);
    const before = pids.map(cpuTicks);
    await sleep(seconds * 1000);
    const after = pids.map(cpuTicks);
    if (after.some((t) => t === null)) throw new Error('a waiting hook exited while it was measured');
    const ticks = after.reduce((sum, t, i) => sum + t - before[i], 0);
    const share = (100 * ticks) / TICKS_PER_SECOND / seconds;
    return metric(WAITING_CPU, '% of a core', [share], { note: `CPU of ${pids.length} cold hooks waiting on a person, together, over ${seconds} s (per-process counters of /proc)` });
  } catch (err) {
    return failed(WAITING_CPU, '% of a core', err);
  }
}

/** Every scale metric, with the sizes of the mode. */
export async function scaleBench({ allowlist, worktree, audit, approvals, runs, waitSeconds, log }) {
  const a = allowlistCurve(allowlist, runs, log);
  const w = await worktreeCurve(worktree, runs, log);
  const base = [...a.base, ...w.base];
  const baseline = base.length > 0 ? metric(BASELINE, 'ms', base, { note: '`node -e 0`, interleaved with the hook calls of the scale curves' }) : failed(BASELINE, 'ms', 'no hook call ran');
  return [baseline, ...a.out, ...w.out, ...(await auditCurves(audit, log)), ...(await approvalCurve(approvals, runs, waitSeconds, log))];
}

/** The metric names of a run with these sizes. */
export function scaleMetricNames({ allowlist, worktree, audit, approvals }) {
  return [
    BASELINE,
    ...allowlist.map(CURVES.allowlist.name),
    ...worktree.flatMap((n) => [CURVES.worktree.name(n), CURVES.warmStop.name(n)]),
    ...audit.flatMap((n) => [CURVES.append.name(n), CURVES.verify.name(n)]),
    ...approvals.map(CURVES.approvals.name),
    WAITING_CPU,
  ];
}

/** The curves of finished metrics, for bench/lib/plot.mjs: one per curve, one point per size measured. */
export function curves(metrics, sizes) {
  const byName = new Map(metrics.map((m) => [m.name, m]));
  const of = (key, list) => ({
    id: key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`),
    ...CURVES[key],
    points: list.flatMap((n) => {
      const m = byName.get(CURVES[key].name(n));
      // Cold hook curves as ratios to `node -e 0` in the same run: on a shared machine the milliseconds mostly measure the load.
      const y = CURVES[key].ratio ? m?.ratio : m?.median;
      return m && m.error === undefined && typeof y === 'number' ? [{ x: n, y }] : [];
    }),
  });
  return [of('allowlist', sizes.allowlist), of('worktree', sizes.worktree), of('warmStop', sizes.worktree), of('verify', sizes.audit), of('append', sizes.audit), of('approvals', sizes.approvals)];
}
