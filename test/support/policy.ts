// A whole session policy for tests that need one without starting a session: every field set,
// with the usual defaults; `over` replaces what a test cares about.
import type { Policy } from '../../src/core/policy.js';

export function testPolicy(over: Partial<Policy> = {}): Policy {
  return {
    v: 1,
    session_id: 's1',
    agent: 'claude-code',
    worktree: '/src/app',
    state_dir: '/state',
    allow: ['src/**'],
    protect: [],
    restorable: [],
    producers: [{ name: 'test', kind: 'check', command: ['npm', 'test'], required: true, timeout_s: 600 }],
    sequential: false,
    max_stop_blocks: 3,
    output_cap_bytes: 1024 * 1024,
    posture: 'fail-closed',
    scope_exclude: [],
    agent_runtime: [],
    record_allows: false,
    stop_hooks: [],
    extension_hooks: [],
    turn: { enabled: true, order: null, repeat_threshold: 3, halt_threshold: 5, max_tool_calls: null, failure_threshold: null, goal: null, watch_all_tools: false },
    approvals: { interactive: false, timeout_s: 600, smart_auto_approve: false, always_allow: [] },
    permissions: { profile: null, custom: {} },
    baseline_sha256: null,
    sandboxed: false,
    created_at: '2025-01-01T00:00:00.000Z',
    ...over,
  };
}
