import { describe, expect, it } from 'vitest';
import { checkPolicy, type Policy } from '../../src/core/policy.js';

const policy: Policy = {
  v: 1,
  session_id: 's1',
  agent: 'claude',
  worktree: '/w',
  state_dir: '/s',
  allow: ['src/**'],
  protect: [],
  restorable: [],
  producers: [{ name: 'test', kind: 'check', command: ['npm', 'test'], required: true, timeout_s: 300 }],
  sequential: false,
  max_stop_blocks: 8,
  output_cap_bytes: 65536,
  posture: 'fail-open',
  scope_exclude: [],
  agent_runtime: [],
  record_allows: false,
  stop_hooks: [{ name: 'lint', command: 'npm run lint', timeout_s: 30 }],
  extension_hooks: [],
  turn: {
    enabled: true,
    order: null,
    repeat_threshold: 4,
    halt_threshold: 8,
    max_tool_calls: null,
    failure_threshold: null,
    goal: { text: 'ship', gate_command: 'npm test', source: 'operator', timeout_s: 300 },
    watch_all_tools: true,
  },
  approvals: { interactive: false, timeout_s: 600, smart_auto_approve: false, always_allow: [{ tool: 'Bash', match: { glob: 'npm run *' } }] },
  permissions: { profile: null, custom: { mine: { tools: { Read: true, Write: { paths: ['src/**'] } } } } },
  baseline_sha256: null,
  sandboxed: false,
  sandbox: null,
  created_at: '2026-12-01T00:00:00.000Z',
};

describe('checkPolicy', () => {
  it('reads back the policy start writes', () => {
    expect(checkPolicy(JSON.parse(JSON.stringify(policy)))).toEqual({ ok: true, value: policy });
  });

  it('reads the timeouts an older Gatehouse wrote as timeout_secs and timeout_seconds', () => {
    const old = JSON.parse(JSON.stringify(policy)) as Record<string, Record<string, unknown> & { goal?: Record<string, unknown> }> & { stop_hooks: Record<string, unknown>[] };
    for (const h of old.stop_hooks) [h.timeout_secs, h.timeout_s] = [7, undefined];
    old.turn!.goal = { text: 'ship', gate_command: 'npm test', source: 'operator', timeout_secs: 9 };
    old.approvals = { interactive: false, timeout_seconds: 11, smart_auto_approve: false, always_allow: [] };
    const r = checkPolicy(JSON.parse(JSON.stringify(old)));
    if (!r.ok) throw new Error(r.reason);
    expect([r.value.stop_hooks[0]?.timeout_s, r.value.turn.goal?.timeout_s, r.value.approvals.timeout_s]).toEqual([7, 9, 11]);
  });

  it('names the first key that is wrong', () => {
    expect(checkPolicy({ ...policy, turn: { ...policy.turn, goal: { ...policy.turn.goal, timeout_s: '30' } } })).toEqual({ ok: false, reason: 'turn.goal.timeout_s must be a positive number' });
    expect(checkPolicy({ ...policy, approvals: { ...policy.approvals, always_allow: [{ tool: 'Bash', match: { glob: '*', regex: '.*' } }] } })).toEqual({
      ok: false,
      reason: 'approvals.always_allow[0].match must be exactly one of {exact}, {glob} or {regex}',
    });
    expect(checkPolicy([])).toEqual({ ok: false, reason: 'the record must be an object' });
    expect(checkPolicy({ ...policy, v: 2 })).toEqual({ ok: false, reason: 'v must be 1' });
  });

  it('takes a policy from before the baseline digest as having none', () => {
    const { baseline_sha256: _, ...older } = policy;
    const r = checkPolicy(older);
    expect(r.ok && r.value.baseline_sha256).toBe(null);
  });
});
