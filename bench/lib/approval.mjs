// Approval round trip: the real PreToolUse hook process waits on a pending approval (a
// session with `approvals.interactive: true`), the real supervisor runs, and the approval is
// resolved over HTTP exactly as the dashboard does (GET the queue for the nonce, POST
// resolve). Timed: from sending the POST until the waiting hook process has exited.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { failed, metric } from './stats.mjs';
import { hasTransportOption, http, makeWorktree, sleep, startSession, startSupervisor, tempDir, track, within } from './common.mjs';

export const APPROVAL_METRIC = 'approval.round_trip';

const SESSION = 'bench-approval';

/** Starts the hook as Claude Code does; resolves `{ exited }` with a promise of its exit. */
function startHook(command, input, cwd) {
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

async function waitPending(supervisor, hook, timeoutMs = 20_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const r = await http('GET', `${supervisor.origin}/approvals/queue?session=${SESSION}`, { headers: operator(supervisor) });
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

export async function approvalBench({ runs, warmup, log }) {
  const base = tempDir('gh-bench-approval-');
  const wt = makeWorktree(join(base, 'wt'));
  const state = join(base, 'state');
  writeFileSync(join(wt, 'gatehouse.yaml'), 'approvals:\n  interactive: true\n  timeout_s: 120\n');
  let supervisor = null;
  try {
    supervisor = await startSupervisor(wt, state);
    // `command`: the real hook process waits (a warm session would wait inside the supervisor).
    const hooks = startSession({ worktree: wt, stateDir: state, id: SESSION, transport: hasTransportOption() ? 'command' : null });
    const samples = [];
    for (let i = 0; i < warmup + runs; i++) {
      // A command the classifier cannot rate read-only, so it asks; each call differs (the tool-loop watchdog).
      const input = JSON.stringify({ session_id: 'claude-bench', cwd: wt, permission_mode: 'default', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'npm run build', description: `Build the project (${i})` }, tool_use_id: `toolu_a${i}` });
      const hook = startHook(hooks.PreToolUse.command, input, wt);
      const pending = await waitPending(supervisor, hook);
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
      if ((i + 1) % 10 === 0) log(`approval round trip: ${i + 1}/${warmup + runs}`);
    }
    return [metric(APPROVAL_METRIC, 'ms', samples, { targetChecks: [{ on: 'median', op: '<', value: 50 }], note: 'POST /approvals/{id}/resolve sent → waiting hook process exited (real `serve`, real hook)' })];
  } catch (err) {
    return [failed(APPROVAL_METRIC, 'ms', err, { targetChecks: [{ on: 'median', op: '<', value: 50 }] })];
  } finally {
    await supervisor?.stop();
  }
}
