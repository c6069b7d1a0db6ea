import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VerifierChain } from '../../../src/core/verifier-chain.js';
import { combineStopHooks, runStopHook, runStopHooks, shellStopHooksVerifier, type StopHookSpec } from '../../../src/runtime/stop-hooks/shell.js';
import { STREAM_CAP_BYTES } from '../../../src/runtime/stop-hooks/run-command.js';
import { CTX, GROUP_DEAD_WITHIN_MS, deadAt, floodScript, nodeCommand, stubbornTreeScript, tempDir, waitForFile } from './support.js';

const MiB = 1024 * 1024;
let t: ReturnType<typeof tempDir>;

beforeEach(() => {
  t = tempDir('gatehouse-stop-hooks-');
});
afterEach(() => t.cleanup());

const hook = (name: string, command: string, timeout_s?: number): StopHookSpec => (timeout_s === undefined ? { name, command } : { name, command, timeout_s });

describe('runStopHook', () => {
  it('allows on exit 0', async () => {
    const r = await runStopHook(hook('ok', 'exit 0'), CTX, { cwd: t.dir });
    expect(r).toMatchObject({ name: 'ok', outcome: 'allow', exit_code: 0, signal: null, timed_out: false, reason: '' });
    expect(r.error).toBeUndefined();
  });

  it('blocks on exit 2 with the trimmed stdout as the reason, or a default naming the hook', async () => {
    const told = await runStopHook(hook('lint', "printf '  \\n lint fails in a.ts \\n\\n'; exit 2"), CTX, { cwd: t.dir });
    expect(told).toMatchObject({ outcome: 'block', exit_code: 2, reason: 'lint fails in a.ts' });
    const silent = await runStopHook(hook('quiet', 'echo only-stderr >&2; exit 2'), CTX, { cwd: t.dir });
    expect(silent).toMatchObject({ outcome: 'block', reason: 'stop hook quiet blocked the stop', stderr: 'only-stderr\n' });
  });

  it('halts on exit 3', async () => {
    const r = await runStopHook(hook('budget', 'echo budget exhausted; exit 3'), CTX, { cwd: t.dir });
    expect(r).toMatchObject({ outcome: 'halt', exit_code: 3, reason: 'budget exhausted' });
  });

  it('treats any other exit code as an error, not a verdict', async () => {
    const r = await runStopHook(hook('crash', 'echo boom >&2; exit 1'), CTX, { cwd: t.dir });
    expect(r).toMatchObject({ outcome: 'error', exit_code: 1 });
    expect(r.error).toMatch(/exited with code 1/);
    expect(r.reason).toBe(r.error);
  });

  it('treats a command sh cannot find (exit 127) as an error', async () => {
    const r = await runStopHook(hook('missing', 'gatehouse-no-such-command-xyz --check'), CTX, { cwd: t.dir });
    expect(r).toMatchObject({ outcome: 'error', exit_code: 127 });
    expect(r.error).toContain('command not found');
  });

  it('treats death by a signal as an error', async () => {
    const r = await runStopHook(hook('killed', 'kill -KILL $$'), CTX, { cwd: t.dir });
    expect(r).toMatchObject({ outcome: 'error', exit_code: null, signal: 'SIGKILL', timed_out: false });
    expect(r.error).toContain('SIGKILL');
  });

  it('reports a spawn failure (missing cwd) as an error instead of throwing', async () => {
    const r = await runStopHook(hook('nowhere', 'exit 0'), CTX, { cwd: join(t.dir, 'does-not-exist') });
    expect(r).toMatchObject({ outcome: 'error', exit_code: null, signal: null });
    expect(r.error).toMatch(/could not start.*ENOENT/);
  });

  it('refuses an empty command rather than letting `sh -c ""` allow every stop', async () => {
    const r = await runStopHook(hook('blank', '   '), CTX, { cwd: t.dir });
    expect(r).toMatchObject({ outcome: 'error', error: 'has an empty command' });
  });

  it('pipes exactly the context JSON on stdin and runs in the given cwd and env', async () => {
    const out = join(t.dir, 'stdin.json');
    const r = await runStopHook(hook('probe', `cat > ${out}; pwd; echo "$GH_PROBE"`), { ...CTX, extra: 'not for hooks' } as typeof CTX, {
      cwd: t.dir,
      env: { ...process.env, GH_PROBE: 'probe-value' },
    });
    expect(r.outcome).toBe('allow');
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual(CTX);
    expect(r.stdout).toContain(t.dir.split('/').pop());
    expect(r.stdout).toContain('probe-value');
  });

  it('does not fail when the hook never reads a large stdin (EPIPE)', async () => {
    const big = { ...CTX, final_text: 'x'.repeat(4 * MiB) };
    const early = await runStopHook(hook('ignores-stdin', 'exit 0'), big, { cwd: t.dir });
    expect(early.outcome).toBe('allow');
    const closes = await runStopHook(hook('closes-stdin', 'exec 0<&-; sleep 0.2; exit 2'), big, { cwd: t.dir });
    expect(closes.outcome).toBe('block');
  });

  it.each(['stdout', 'stderr'] as const)('caps 10 MB on %s to the first 64 KiB, counts the rest and does not deadlock', async (stream) => {
    const r = await runStopHook(hook('flood', nodeCommand(t.dir, 'flood.cjs', floodScript(stream, 10, 2))), CTX, { cwd: t.dir });
    expect(r.outcome).toBe('block');
    const kept = stream === 'stdout' ? r.stdout : r.stderr;
    expect(Buffer.byteLength(kept)).toBe(STREAM_CAP_BYTES);
    expect(STREAM_CAP_BYTES).toBe(64 * 1024);
    expect(kept).toBe('a'.repeat(STREAM_CAP_BYTES));
    expect(stream === 'stdout' ? r.stdout_truncated : r.stderr_truncated).toBe(true);
    expect(stream === 'stdout' ? r.stdout_bytes : r.stderr_bytes).toBe(10 * MiB + 3);
    expect(stream === 'stdout' ? r.stderr_truncated : r.stdout_truncated).toBe(false);
  });

  it('does not split a multi-byte character at the cap', async () => {
    // 'é' is two bytes; an odd offset puts the cap in the middle of one.
    const r = await runStopHook(hook('utf8', `${nodeCommand(t.dir, 'utf8.cjs', "process.stdout.write('x' + 'é'.repeat(40000))")}`), CTX, { cwd: t.dir });
    expect(r.stdout_truncated).toBe(true);
    expect(r.stdout).toBe('x' + 'é'.repeat((STREAM_CAP_BYTES - 2) / 2));
  });

  it('on timeout kills the whole group, grandchildren included, within 1 s of the deadline', async () => {
    const pidFile = join(t.dir, 'grandchild.pid');
    const timeout_s = 2;
    const started = Date.now();
    const run = runStopHook(hook('hang', nodeCommand(t.dir, 'tree.cjs', stubbornTreeScript(pidFile)), timeout_s), CTX, { cwd: t.dir });
    const pid = Number((await waitForFile(pidFile)).trim());
    t.strays.push(pid);
    const r = await run;
    const deadline = started + timeout_s * 1000;
    const dead = await deadAt(pid, deadline + 10_000);
    expect(r).toMatchObject({ outcome: 'error', timed_out: true, exit_code: null });
    expect(r.error).toBe('timed out after 2 s');
    expect(r.stdout).toContain('started grandchild');
    expect(dead).not.toBeNull();
    expect((dead as number) - deadline).toBeLessThanOrEqual(GROUP_DEAD_WITHIN_MS);
  });

  it('on abort kills the whole group and reports an error', async () => {
    const pidFile = join(t.dir, 'grandchild.pid');
    const ac = new AbortController();
    const run = runStopHook(hook('hang', nodeCommand(t.dir, 'tree.cjs', stubbornTreeScript(pidFile))), CTX, { cwd: t.dir, signal: ac.signal });
    const pid = Number((await waitForFile(pidFile)).trim());
    t.strays.push(pid);
    const abortedAt = Date.now();
    ac.abort();
    const r = await run;
    const dead = await deadAt(pid, abortedAt + 10_000);
    expect(r).toMatchObject({ outcome: 'error', timed_out: false });
    expect(r.error).toContain('cancelled');
    expect(dead).not.toBeNull();
    expect((dead as number) - abortedAt).toBeLessThanOrEqual(GROUP_DEAD_WITHIN_MS);
  });

  it('does not start anything when the signal is already aborted', async () => {
    const marker = join(t.dir, 'ran');
    const r = await runStopHook(hook('never', `touch ${marker}`), CTX, { cwd: t.dir, signal: AbortSignal.abort() });
    expect(r.outcome).toBe('error');
    expect(existsSync(marker)).toBe(false);
  });
});

describe('runStopHooks', () => {
  it('runs hooks in parallel: the wall time is well under the sum of the runs', async () => {
    const hooks = [hook('a', 'sleep 0.8'), hook('b', 'sleep 0.8'), hook('c', 'sleep 0.8')];
    let t0 = Date.now();
    const sequential = [];
    for (const h of hooks) sequential.push(await runStopHook(h, CTX, { cwd: t.dir }));
    const sequentialWall = Date.now() - t0;
    t0 = Date.now();
    const parallel = await runStopHooks(hooks, CTX, { cwd: t.dir });
    const parallelWall = Date.now() - t0;

    expect([...sequential, ...parallel].every((r) => r.outcome === 'allow')).toBe(true);
    const parallelSum = parallel.reduce((sum, r) => sum + r.duration_ms, 0);
    expect(parallelWall).toBeLessThan(0.7 * parallelSum);
    expect(parallelWall).toBeLessThan(sequentialWall);
  });

  it('returns results in hook order, not finish order', async () => {
    const results = await runStopHooks([hook('slow', 'sleep 0.5; exit 2'), hook('fast', 'exit 0'), hook('mid', 'sleep 0.2; exit 3')], CTX, { cwd: t.dir });
    expect(results.map((r) => [r.name, r.outcome])).toEqual([
      ['slow', 'block'],
      ['fast', 'allow'],
      ['mid', 'halt'],
    ]);
  });
});

describe('combineStopHooks', () => {
  it('skips the stage (continue) when no hooks are configured', () => {
    expect(combineStopHooks([], 'fail-closed')).toMatchObject({ kind: 'continue', detail: { skipped: 'no stop hooks configured' } });
  });

  it('lets halt outrank block', async () => {
    const results = await runStopHooks([hook('blocker', 'echo fix tests; exit 2'), hook('halter', 'echo out of budget; exit 3'), hook('ok', 'exit 0')], CTX, { cwd: t.dir });
    for (const mode of ['fail-open', 'fail-closed'] as const) expect(combineStopHooks(results, mode)).toMatchObject({ kind: 'halt', reason: 'out of budget' });
  });

  it('joins several block reasons, each tagged with its hook', async () => {
    const results = await runStopHooks([hook('lint', 'echo lint fails; exit 2'), hook('types', 'echo tsc fails; exit 2')], CTX, { cwd: t.dir });
    const out = combineStopHooks(results, 'fail-open');
    expect(out.kind).toBe('block');
    expect(out.kind === 'block' && out.reason).toBe('[lint] lint fails\n\n[types] tsc fails');
  });

  it('splits on posture for the same failing hook: fail-open allows and logs, fail-closed blocks', async () => {
    const results = await runStopHooks([hook('broken', 'echo cannot reach db >&2; exit 1'), hook('fine', 'exit 0')], CTX, { cwd: t.dir });
    const open = combineStopHooks(results, 'fail-open');
    expect(open.kind).toBe('continue');
    expect(open.detail).toMatchObject({ errors: [{ name: 'broken', error: expect.stringContaining('exited with code 1') }] });
    const closed = combineStopHooks(results, 'fail-closed');
    expect(closed.kind).toBe('block');
    const reason = closed.kind === 'block' ? closed.reason : '';
    expect(reason).toContain('completion cannot be claimed when the check could not run');
    expect(reason).toContain('broken');
    expect(reason).toContain('cannot reach db');
  });
});

describe('shellStopHooksVerifier', () => {
  it('is the fail-open stage shell_stop_hooks: an erroring hook does not stop the chain, a block does', async () => {
    const failing = shellStopHooksVerifier([hook('broken', 'exit 7')], { cwd: t.dir });
    expect(failing).toMatchObject({ name: 'shell_stop_hooks', posture: 'fail-open' });
    const passed = await new VerifierChain([failing]).run(CTX, new AbortController().signal);
    expect(passed.outcome).toBe('continue');
    expect(passed.records[0]).toMatchObject({ name: 'shell_stop_hooks', outcome: 'continue', detail: { errors: [{ name: 'broken' }] } });

    const blocking = shellStopHooksVerifier([hook('tests', 'echo 3 tests fail; exit 2')], { cwd: t.dir });
    const blocked = await new VerifierChain([blocking]).run(CTX, new AbortController().signal);
    expect(blocked).toMatchObject({ outcome: 'block', decidedBy: 'shell_stop_hooks', reason: '3 tests fail' });
  });
});
