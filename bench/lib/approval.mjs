// Approval round trip: the real PreToolUse hook waits on a pending approval (a session with
// `approvals.interactive: true`), the real supervisor runs, and the approval is resolved over
// HTTP exactly as the dashboard does (GET the queue for the nonce, POST resolve). Timed: from
// sending the POST until the waiting hook process has exited. Two transports: `command` (the
// hook process itself waits) and `warm` (the bash client waits on a held HTTP reply from the
// supervisor, so both ends of the trip cross the gateway's HTTP layer).
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { failed, metric } from './stats.mjs';
import { hasTransportOption, http, makeWorktree, sleep, startSession, startSupervisor, tempDir, track, within } from './common.mjs';

/** One metric per hook transport; `command` keeps the name it has always had. */
const APPROVAL_METRICS = { command: 'approval.round_trip', warm: 'approval.round_trip_warm' };

const TARGETS = [{ on: 'median', op: '<', value: 50 }];

/** Starts the hook as Claude Code does; resolves `{ exited }` with a promise of its exit. */
export function startHook(command, input, cwd) {
  const child = track(spawn('/bin/sh', ['-c', command], { cwd, stdio: ['pipe', 'pipe', 'pipe'] }));
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ at: process.hrtime.bigint(), code, signal, stdout, stderr })));
  child.stdin.end(input);
  return { child, exited };
}

/** The person's credential: the access token `serve` printed in the dashboard URL. */
const operator = (supervisor) => ({ authorization: `Bearer ${supervisor.token}` });

export async function waitPending(supervisor, session, hook, timeoutMs = 20_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const r = await http('GET', `${supervisor.origin}/approvals/queue?session=${session}`, { headers: operator(supervisor) });
    if (r.status !== 200) throw new Error(`GET /approvals/queue answered ${r.status}: ${r.text.slice(0, 200)}`);
    if (r.json.pending.length > 0) return r.json.pending[0];
    if (hook.child.exitCode !== null) {
      const e = await hook.exited;
      throw new Error(`the hook exited ${e.code} without asking for an approval: ${e.stdout.slice(0, 200)} ${e.stderr.trim().slice(0, 300)}`);
    }
    if (Date.now() > until) throw new Error('no pending approval appeared within 20 s');
    await sleep(10);
  }
}

/** Times `warmup + runs` round trips through the session's rendered PreToolUse hook. */
async function roundTrips({ supervisor, hooks, session, wt, runs, warmup, log, label }) {
  const samples = [];
  for (let i = 0; i < warmup + runs; i++) {
    // A command the classifier cannot rate read-only, so it asks; each call differs (the tool-loop watchdog).
    const input = JSON.stringify({
      session_id: `claude-${session}`,
      cwd: wt,
      permission_mode: 'default',
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'npm run build', description: `Build the project (${i})` },
      tool_use_id: `toolu_a${i}`,
    });
    const hook = startHook(hooks.PreToolUse.command, input, wt);
    const pending = await waitPending(supervisor, session, hook);
    // Let the hook settle into its wait (watchers set up), as it would while a person reads the request.
    await sleep(150);
    const t0 = process.hrtime.bigint();
    const r = await http('POST', `${supervisor.origin}/approvals/${pending.id}/resolve`, { body: { decision: 'allow', nonce: pending.nonce, reason: null }, headers: operator(supervisor) });
    if (r.status !== 200) {
      hook.child.kill('SIGKILL');
      throw new Error(`POST /approvals/${pending.id}/resolve answered ${r.status}: ${r.text.slice(0, 200)}`);
    }
    const done = await within(hook.exited, 30_000, () => null);
    if (done === null) {
      hook.child.kill('SIGKILL');
      throw new Error('the hook did not exit within 30 s of the approval');
    }
    const denied = done.stdout.includes('"deny"') || done.stdout.includes('"continue":false');
    if (done.code !== 0 || denied) throw new Error(`the approved call was not allowed: exit ${done.code ?? done.signal}, ${done.stdout.slice(0, 200)} ${done.stderr.trim().slice(0, 300)}`);
    if (i >= warmup) samples.push(Number(done.at - t0) / 1e6);
    if ((i + 1) % 10 === 0) log(`approval round trip (${label}): ${i + 1}/${warmup + runs}`);
  }
  return samples;
}

/** One transport's round trips, with its own project and supervisor: a session's hooks own the worktree's settings. */
async function transportBench({ transport, session, note }, { runs, warmup, log }) {
  const name = APPROVAL_METRICS[transport];
  if (transport === 'warm' && !hasTransportOption()) return failed(name, 'ms', 'this build has no --transport option', { targetChecks: TARGETS });
  const base = tempDir(`gh-bench-approval-${transport}-`);
  const wt = makeWorktree(join(base, 'wt'));
  const state = join(base, 'state');
  writeFileSync(join(wt, 'gatehouse.yaml'), 'approvals:\n  interactive: true\n  timeout_s: 120\n');
  let supervisor = null;
  try {
    supervisor = await startSupervisor(wt, state);
    const hooks = startSession({ worktree: wt, stateDir: state, id: session, transport: hasTransportOption() ? transport : null });
    const samples = await roundTrips({ supervisor, hooks, session, wt, runs, warmup, log, label: transport });
    return metric(name, 'ms', samples, { targetChecks: TARGETS, note });
  } catch (err) {
    return failed(name, 'ms', err, { targetChecks: TARGETS });
  } finally {
    await supervisor?.stop();
  }
}

export async function approvalBench(opts) {
  // `command`: the real hook process waits; `warm`: the bash client waits on the supervisor's held reply.
  return [
    await transportBench(
      { transport: 'command', session: 'bench-approval', note: 'POST /approvals/{id}/resolve sent → waiting hook process exited (real `serve`, real hook, `--transport command`)' },
      opts,
    ),
    await transportBench(
      { transport: 'warm', session: 'bench-approval-warm', note: 'POST /approvals/{id}/resolve sent → waiting warm hook client (bash, held HTTP reply) exited (real `serve`, `--transport warm`)' },
      opts,
    ),
  ];
}
