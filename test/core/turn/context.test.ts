import { describe, expect, it } from 'vitest';
import { DEFAULT_PROFILE, RECENT_TOOL_CALLS, clampProfile, hashArgs, memoryStateStore, pushRecent, toolCallRecord, type RobustnessProfile } from '../../../src/core/turn/context.js';

describe('toolCallRecord', () => {
  it('hashes equal arguments equally whatever their key order', () => {
    const a = toolCallRecord('Edit', { file_path: 'a.ts', old_string: 'x', new_string: 'y' }, 'write');
    const b = toolCallRecord('Edit', { new_string: 'y', old_string: 'x', file_path: 'a.ts' }, 'write');
    expect(a.args_hash).toBe(b.args_hash);
    expect(a.args_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('hashes different arguments differently', () => {
    expect(hashArgs({ command: 'npm test' })).not.toBe(hashArgs({ command: 'npm  test' }));
  });

  it('hashes a library object with undefined fields like its JSON form instead of throwing', () => {
    expect(hashArgs({ a: 1, b: undefined })).toBe(hashArgs({ a: 1 }));
    expect(hashArgs(undefined)).toBe(hashArgs(null));
  });

  it.each([
    ['write', { mutation: true, execution: false }],
    ['shell', { mutation: false, execution: true }],
    ['read', { mutation: false, execution: false }],
    ['other', { mutation: false, execution: false }],
  ] as const)('derives the flags of a %s call from its kind', (kind, flags) => {
    expect(toolCallRecord('T', {}, kind)).toMatchObject(flags);
  });

  it('lets the caller mark a shell command recognised as a write as a mutation, not an execution', () => {
    const rec = toolCallRecord('Bash', { command: "sed -i 's/a/b/' f" }, 'shell', { mutation: true, execution: false });
    expect(rec).toMatchObject({ mutation: true, execution: false });
    expect('failed' in rec).toBe(false);
  });
});

describe('clampProfile', () => {
  const cases: [string, Partial<RobustnessProfile>, Partial<RobustnessProfile>, number][] = [
    ['fills every default from nothing', {}, DEFAULT_PROFILE, 0],
    [
      'keeps values inside their ranges',
      { repeat_threshold: 3, halt_threshold: 4, max_tool_calls: 500, failure_threshold: 6 },
      { repeat_threshold: 3, halt_threshold: 4, max_tool_calls: 500, failure_threshold: 6 },
      0,
    ],
    ['raises repeat below 2 to 2', { repeat_threshold: 1 }, { repeat_threshold: 2 }, 1],
    ['lowers repeat above 50 to 50 and keeps halt above it', { repeat_threshold: 99 }, { repeat_threshold: 50, halt_threshold: 51 }, 1],
    ['raises halt to one above repeat', { repeat_threshold: 5, halt_threshold: 5 }, { halt_threshold: 6 }, 1],
    ['lowers halt above 200 to 200', { halt_threshold: 1000 }, { halt_threshold: 200 }, 1],
    ['raises max_tool_calls below 1 to 1', { max_tool_calls: 0 }, { max_tool_calls: 1 }, 1],
    ['lowers max_tool_calls above 100000', { max_tool_calls: 1e9 }, { max_tool_calls: 100_000 }, 1],
    ['keeps max_tool_calls null as no limit', { max_tool_calls: null }, { max_tool_calls: null }, 0],
    ['clamps failure_threshold into 1..100', { failure_threshold: 500 }, { failure_threshold: 100 }, 1],
    ['keeps failure_threshold null as off', { failure_threshold: null }, { failure_threshold: null }, 0],
    ['rounds a fractional threshold down', { repeat_threshold: 3.7 }, { repeat_threshold: 3 }, 1],
    ['replaces a non-number with the default', { repeat_threshold: Number.NaN }, { repeat_threshold: 5 }, 1],
  ];
  it.each(cases)('%s', (_name, input, expected, noteCount) => {
    const { profile, notes } = clampProfile(input);
    expect(profile).toMatchObject(expected);
    expect(profile.halt_threshold).toBeGreaterThan(profile.repeat_threshold);
    expect(notes).toHaveLength(noteCount);
  });

  it('says in its note what it clamped and the allowed range', () => {
    expect(clampProfile({ repeat_threshold: 1 }).notes[0]).toBe('repeat_threshold 1 clamped to 2 (allowed 2..50)');
  });
});

describe('pushRecent', () => {
  it(`keeps only the last ${RECENT_TOOL_CALLS} calls, oldest first, without changing the input`, () => {
    let list = [toolCallRecord('T', 0, 'other')];
    const first = list;
    for (let i = 1; i < 12; i++) list = pushRecent(list, toolCallRecord('T', i, 'other'));
    expect(list).toHaveLength(RECENT_TOOL_CALLS);
    expect(list[0]!.args_hash).toBe(hashArgs(4));
    expect(list.at(-1)!.args_hash).toBe(hashArgs(11));
    expect(first).toHaveLength(1);
  });
});

describe('memoryStateStore', () => {
  it('returns what was set and undefined for unknown keys', () => {
    const store = memoryStateStore({ a: 1 });
    store.set('b', { x: true });
    expect(store.get('a')).toBe(1);
    expect(store.get('b')).toEqual({ x: true });
    expect(store.get('c')).toBeUndefined();
  });
});
