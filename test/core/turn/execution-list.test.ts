import { describe, expect, it } from 'vitest';
import { DEFAULT_PROFILE, type TurnVerifyContext } from '../../../src/core/turn/context.js';
import { checkExecutionList, executionListVerifier, parseScratchpad, type ExecItem } from '../../../src/core/turn/execution-list.js';

const signal = new AbortController().signal;

describe('parseScratchpad', () => {
  it('reads the objective and the plan items with their marks', () => {
    const md = [
      '# Scratchpad',
      '',
      '## Objective',
      'Make the build green.',
      '',
      '## Plan',
      '- [x] read the failure',
      '- [~] fix the parser',
      '- [ ] run the tests',
      '* [X] star bullet',
      '## Notes',
      '- [ ] not a plan item',
    ].join('\n');
    expect(parseScratchpad(md)).toEqual({
      objective: 'Make the build green.',
      items: [
        { text: 'read the failure', status: 'completed' },
        { text: 'fix the parser', status: 'in_progress' },
        { text: 'run the tests', status: 'pending' },
        { text: 'star bullet', status: 'completed' },
      ],
    });
  });

  it('keeps sub-headings and nested items inside the plan and ignores fenced code', () => {
    const md = ['## plan', '### Phase 1', '- [ ] a', '  - [x] a.1', '```', '- [ ] in code', '```', 'prose line', '- plain bullet'].join('\r\n');
    expect(parseScratchpad(md).items).toEqual([
      { text: 'a', status: 'pending' },
      { text: 'a.1', status: 'completed' },
    ]);
  });

  it('returns no objective and no items without those sections', () => {
    expect(parseScratchpad('just text\n- [ ] loose item')).toEqual({ objective: null, items: [] });
  });
});

describe('checkExecutionList', () => {
  const items = (n: number, status: ExecItem['status'] = 'pending'): ExecItem[] => Array.from({ length: n }, (_, i) => ({ text: `item ${i + 1}`, status }));

  it.each([
    ['continues with no list', null],
    ['continues with an empty list', []],
    ['continues when every item is done', items(3, 'completed')],
  ] as const)('%s', (_name, list) => {
    expect(checkExecutionList(list).kind).toBe('continue');
  });

  it('blocks while items are pending or in progress and lists them, marking the one in progress', () => {
    const out = checkExecutionList([
      { text: 'read', status: 'completed' },
      { text: 'fix', status: 'in_progress' },
      { text: 'test', status: 'pending' },
    ]);
    expect(out.kind).toBe('block');
    if (out.kind !== 'block') return;
    expect(out.reason).toContain('2 unfinished item(s)');
    expect(out.reason).toContain('- fix (in progress)\n- test\n');
    expect(out.reason).not.toContain('read');
    expect(out.detail).toEqual({ unfinished: 2, in_progress: 1 });
  });

  it('names numbered tasks by number and says to update them with TaskUpdate', () => {
    const out = checkExecutionList([
      { id: '1', text: 'Write the parser', status: 'completed' },
      { id: '3', text: 'Add tests', status: 'in_progress' },
    ]);
    if (out.kind !== 'block') throw new Error('expected a block');
    expect(out.reason).toContain('- #3 Add tests (in progress)\n');
    expect(out.reason).toContain('TaskUpdate: status "completed"');
  });

  it('lists 8 of 12 unfinished items and says how many more there are', () => {
    const out = checkExecutionList(items(12));
    if (out.kind !== 'block') throw new Error('expected a block');
    expect(out.reason).toContain('- item 8\n');
    expect(out.reason).not.toContain('item 9');
    expect(out.reason).toContain('…and 4 more');
  });

  it('adds no "more" line for exactly 8', () => {
    const out = checkExecutionList(items(8));
    if (out.kind !== 'block') throw new Error('expected a block');
    expect(out.reason).not.toContain('more');
  });
});

describe('executionListVerifier', () => {
  const ctx = (stop_reason: 'end_turn' | null): TurnVerifyContext => ({
    session_id: 's',
    iterations: 3,
    tool_calls_made: 10,
    final_text: 'done',
    recent_tool_calls: [],
    stop_reason,
    profile: DEFAULT_PROFILE,
  });
  const open: ExecItem[] = [{ text: 'x', status: 'pending' }];

  it('blocks a real stop with unfinished items', async () => {
    expect((await executionListVerifier(() => open).verify(ctx('end_turn'), signal)).kind).toBe('block');
  });

  it('never vetoes mid-turn, when the list is expected to be open, and does not even read it', async () => {
    let read = 0;
    const v = executionListVerifier(() => {
      read++;
      return open;
    });
    expect((await v.verify(ctx(null), signal)).kind).toBe('continue');
    expect(read).toBe(0);
  });

  it('accepts an async getter', async () => {
    expect((await executionListVerifier(() => Promise.resolve(null)).verify(ctx('end_turn'), signal)).kind).toBe('continue');
  });
});
