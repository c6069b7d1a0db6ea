import { describe, expect, it } from 'vitest';
import {
  EMPTY_MUTATION_TRACK,
  buildVerifierChain,
  clampProfile,
  executionListVerifier,
  memoryStateStore,
  mutationNudgeVerifier,
  observeCall,
  parseScratchpad,
  pushRecent,
  toolCallRecord,
  toolLoopVerifier,
  type ToolCallRecord,
  type TurnVerifyContext,
} from '../../../src/core/turn/index.js';

type Call = { name: string; input: Record<string, unknown> };
type Reply = { text: string; toolCalls: Call[] };
const kindOf = (name: string) => (name === 'Edit' ? 'write' : name === 'Bash' ? 'shell' : 'read');

/** The loop from builder.ts's JSDoc, driven by a scripted model. */
async function runLoop(replies: Reply[], scratchpad: () => string) {
  const signal = new AbortController().signal;
  const store = memoryStateStore();
  let recent: ToolCallRecord[] = [];
  let track = EMPTY_MUTATION_TRACK;
  let calls = 0;
  const feedback: string[] = [];
  const acted: string[] = [];
  const built = buildVerifierChain(
    { enabled: true },
    {
      tool_loop: toolLoopVerifier,
      execution_list: executionListVerifier(() => parseScratchpad(scratchpad()).items),
      mutation_nudge: mutationNudgeVerifier(() => ({ track, hasExecutionTool: true, store })),
    },
  );
  if (!built.ok) throw new Error(built.reason);
  const { profile } = clampProfile({ repeat_threshold: 3, halt_threshold: 4 });
  for (let iterations = 1; iterations <= replies.length; iterations++) {
    const reply = replies[iterations - 1]!; // think
    const ctx = (stop_reason: 'end_turn' | null): TurnVerifyContext => ({
      session_id: 's1',
      iterations,
      tool_calls_made: calls,
      final_text: reply.text,
      recent_tool_calls: recent,
      stop_reason,
      profile,
    });
    if (reply.toolCalls.length === 0) {
      const verdict = await built.value.chain.run(ctx('end_turn'), signal);
      if (verdict.outcome === 'continue') return { end: 'done', feedback, acted };
      if (verdict.outcome === 'halt') return { end: 'halt', feedback, acted };
      feedback.push(verdict.reason!);
      continue;
    }
    for (const call of reply.toolCalls) {
      const rec = toolCallRecord(call.name, call.input, kindOf(call.name));
      recent = pushRecent(recent, rec);
      calls++;
      const verdict = await built.value.chain.run(ctx(null), signal);
      if (verdict.outcome === 'halt') return { end: 'halt', feedback, acted };
      if (verdict.outcome === 'block') {
        feedback.push(verdict.reason!);
        continue;
      }
      track = observeCall(track, rec, calls - 1);
      acted.push(call.name); // act
    }
  }
  return { end: 'out of replies', feedback, acted };
}

const say = (text: string): Reply => ({ text, toolCalls: [] });
const call = (name: string, input: Record<string, unknown>): Reply => ({ text: '', toolCalls: [{ name, input }] });

describe('a plain agent loop calling the chain between "think" and "act"', () => {
  it('is told to finish its plan, then nudged once to test its edit, then allowed to stop', async () => {
    let pad = '## Plan\n- [x] edit\n- [ ] test';
    const r = await runLoop([call('Edit', { file_path: 'a.ts' }), say('done'), say('done'), say('done')], () => {
      const current = pad;
      pad = '## Plan\n- [x] edit\n- [x] test';
      return current;
    });
    expect(r.end).toBe('done');
    expect(r.feedback).toHaveLength(2);
    expect(r.feedback[0]).toContain('- test');
    expect(r.feedback[1]).toContain('run a quick check');
  });

  it('refuses a repeated call and halts a loop that ignores the feedback', async () => {
    const same = call('Bash', { command: 'npm test' });
    const r = await runLoop([same, same, same, same, say('done')], () => '');
    expect(r.end).toBe('halt');
    expect(r.acted).toEqual(['Bash', 'Bash']);
    expect(r.feedback[0]).toContain('3 times in a row');
  });
});
