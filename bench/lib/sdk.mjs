// The in-process gate for the Claude Agent SDK: the cost of one `gatehouseHooks` PreToolUse
// callback (what `query()` awaits before each tool call), for an allowed and a refused write,
// in a session started with `--agent claude-sdk`. No process starts: this is the gate itself.
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { gatehouse, LIB_URL, makeWorktree, tempDir } from './common.mjs';
import { metric } from './stats.mjs';

const SDK_METRICS = { allow: 'sdk.pretooluse_allow', block: 'sdk.pretooluse_block' };

/** Times `runs` calls of each case after `warmup`, interleaved; every call differs a little (as real calls do). */
export async function sdkBench({ runs, warmup, log }) {
  const base = tempDir('gh-bench-sdk-');
  const worktree = makeWorktree(join(base, 'repo'));
  const stateDir = join(base, 'state');
  gatehouse(['session', 'start', '--agent', 'claude-sdk', '--worktree', worktree, '--state-dir', stateDir, '--id', 'sdk', '--allow', 'src/**']);
  const { gatehouseHooks } = await import(LIB_URL);
  const [callback] = gatehouseHooks({ session: 'sdk', worktree, stateDir }).PreToolUse[0].hooks;
  const signal = new globalThis.AbortController().signal;
  const input = (file, n) => ({
    session_id: 'x',
    hook_event_name: 'PreToolUse',
    cwd: worktree,
    tool_name: 'Write',
    tool_input: { file_path: join(worktree, file), content: `v${n}` },
    tool_use_id: `t${n}`,
  });
  const allowMs = [];
  const blockMs = [];
  for (let i = 0; i < warmup + runs; i++) {
    let t0 = performance.now();
    const allowed = await callback(input(`src/f${i}.ts`, i), `t${i}`, { signal });
    const a = performance.now() - t0;
    t0 = performance.now();
    const refused = await callback(input('package.json', i), `u${i}`, { signal });
    const b = performance.now() - t0;
    // A gate that decided nothing would be fast: check both answers.
    if (JSON.stringify(allowed) !== '{}') throw new Error(`allow answered ${JSON.stringify(allowed)}`);
    if (refused.hookSpecificOutput?.permissionDecision !== 'deny') throw new Error(`block answered ${JSON.stringify(refused)}`);
    if (i >= warmup) {
      allowMs.push(a);
      blockMs.push(b);
    }
  }
  log?.(`sdk: ${runs} calls each`);
  return [
    metric(SDK_METRICS.allow, 'ms', allowMs, { targetChecks: [{ on: 'median', op: '<', value: 1 }], note: 'gatehouseHooks PreToolUse callback, in process, allowed Write' }),
    metric(SDK_METRICS.block, 'ms', blockMs, { note: 'the same, refused Write (audit event and evidence sealed in process)' }),
  ];
}
