// Telling a person and hearing back: the real `gatehouse serve` with a webhook channel posting to
// a receiver in this process, and the real PreToolUse hook waiting on an approval. Timed: from the
// request's filing (its `created_at`) until the signed webhook arrived, and from sending the
// single-use link's answer (`POST /api/link/answer`) until the waiting hook process exited.
import { createServer } from 'node:http';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startHook, waitPending } from './approval.mjs';
import { http, makeWorktree, sleep, startSession, startSupervisor, tempDir, within } from './common.mjs';
import { failed, metric } from './stats.mjs';

export const NOTIFY_METRICS = { webhook: 'notify.enqueue_to_webhook', link: 'notify.link_answer_to_hook_released' };
const TARGETS = [{ on: 'median', op: '<', value: 100 }];

/** A webhook receiver: every body with the wall-clock ms it arrived at. */
async function startReceiver() {
  const received = [];
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      received.push({ at: Date.now(), body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      res.end('ok');
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${server.address().port}/hook`, received, close: () => new Promise((r) => server.close(r)) };
}

/** The notification that names `id`, once it arrived. */
async function notificationFor(receiver, id, timeoutMs = 10_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const got = receiver.received.find((r) => r.body.approvals.some((a) => a.id === id));
    if (got !== undefined) return { at: got.at, item: got.body.approvals.find((a) => a.id === id) };
    if (Date.now() > until) throw new Error(`no webhook named ${id} within ${timeoutMs} ms`);
    await sleep(2);
  }
}

export async function notifyBench({ runs, warmup, log }) {
  const base = tempDir('gh-bench-notify-');
  const wt = makeWorktree(join(base, 'wt'));
  const state = join(base, 'state');
  const receiver = await startReceiver();
  writeFileSync(
    join(wt, 'gatehouse.yaml'),
    `approvals:\n  interactive: true\n  timeout_s: 120\nnotify:\n  batch_ms: 0\n  webhooks:\n    - url: ${receiver.url}\n      secret_env: GATEHOUSE_BENCH_WEBHOOK_SECRET\n`,
  );
  let supervisor = null;
  const toWebhook = [];
  const toRelease = [];
  try {
    supervisor = await startSupervisor(wt, state, { args: ['--public-url', 'https://gatehouse.bench.invalid/'], env: { ...process.env, GATEHOUSE_BENCH_WEBHOOK_SECRET: 'bench-secret' } });
    const hooks = startSession({ worktree: wt, stateDir: state, id: 'bench-notify', transport: 'command' });
    for (let i = 0; i < warmup + runs; i++) {
      const input = JSON.stringify({
        session_id: 'claude-bench-notify',
        cwd: wt,
        hook_event_name: 'PreToolUse',
        tool_name: 'Bash',
        tool_input: { command: 'npm run build', description: `Build (${i})` },
        tool_use_id: `toolu_n${i}`,
      });
      const hook = startHook(hooks.PreToolUse.command, input, wt);
      const pending = await waitPending(supervisor, 'bench-notify', hook);
      const told = await notificationFor(receiver, pending.id);
      const token = new URL(told.item.link).hash.slice('#t='.length);
      await sleep(150);
      const t0 = process.hrtime.bigint();
      const r = await http('POST', `${supervisor.origin}/api/link/answer`, { body: { token, nonce: pending.nonce, decision: 'allow' } });
      if (r.status !== 200) throw new Error(`POST /api/link/answer answered ${r.status}: ${r.text.slice(0, 200)}`);
      const done = await within(hook.exited, 30_000, () => null);
      if (done === null || done.code !== 0) throw new Error(`the hook was not released as allowed: ${done === null ? 'still waiting after 30 s' : `exit ${done.code}`}`);
      if (i >= warmup) {
        toWebhook.push(told.at - Date.parse(pending.created_at));
        toRelease.push(Number(done.at - t0) / 1e6);
      }
      if ((i + 1) % 10 === 0) log(`notify: ${i + 1}/${warmup + runs}`);
    }
    return [
      metric(NOTIFY_METRICS.webhook, 'ms', toWebhook, {
        targetChecks: TARGETS,
        note: 'request filed by the real hook (its created_at) → signed webhook received on loopback (real `serve`, batch_ms 0)',
      }),
      metric(NOTIFY_METRICS.link, 'ms', toRelease, { targetChecks: TARGETS, note: 'POST /api/link/answer sent → waiting hook process exited (real `serve`, real hook, `--transport command`)' }),
    ];
  } catch (err) {
    return Object.values(NOTIFY_METRICS).map((name) => failed(name, 'ms', err, { targetChecks: TARGETS }));
  } finally {
    await supervisor?.stop();
    await receiver.close();
  }
}
