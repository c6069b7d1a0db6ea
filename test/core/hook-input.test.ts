// The boundary check of a hook input: an object, well-formed Unicode everywhere, a depth and a
// value limit, with a reason that says where, and no recursion however deep the input is.
import { describe, expect, it } from 'vitest';
import { checkHookInput, MAX_INPUT_DEPTH } from '../../src/core/hook-input.js';

const nest = (n: number, leaf: unknown = 1): unknown => {
  let v = leaf;
  for (let i = 0; i < n; i++) v = { k: v };
  return v;
};

describe('checkHookInput', () => {
  it('accepts any well-formed input, surrogate pairs and every plane included', () => {
    expect(checkHookInput({ tool_input: { content: '😀 日本語 é', edits: [{ old_string: 'a', new_string: 'b' }] }, n: 1, b: true, z: null }).ok).toBe(true);
  });

  it('refuses a lone surrogate in a value or a key, naming where', () => {
    const inValue = checkHookInput({ tool_input: { description: 'x\ud800' } });
    expect(inValue).toEqual({ ok: false, reason: expect.stringContaining('"tool_input.description" holds a lone UTF-16 surrogate') });
    const inKey = checkHookInput({ tool_input: { ['\udc00']: 1 } });
    expect(inKey).toEqual({ ok: false, reason: expect.stringContaining('a key in "tool_input"') });
    expect(checkHookInput({ list: ['ok', '\ud83d'] })).toEqual({ ok: false, reason: expect.stringContaining('"list[1]"') });
  });

  it(`refuses nesting past ${MAX_INPUT_DEPTH} levels and reads one at the limit, without recursing (a million levels)`, () => {
    expect(checkHookInput(nest(MAX_INPUT_DEPTH - 1)).ok).toBe(true);
    expect(checkHookInput(nest(MAX_INPUT_DEPTH + 1))).toEqual({ ok: false, reason: expect.stringContaining(`nested deeper than ${MAX_INPUT_DEPTH} levels`) });
    expect(checkHookInput(nest(1_000_000)).ok).toBe(false);
  });

  it('refuses what is not an object at the top, and an input of too many values', () => {
    for (const v of [null, [], 'x', 3]) expect(checkHookInput(v)).toEqual({ ok: false, reason: 'is not a JSON object' });
    expect(checkHookInput({ a: new Array(1_000_001).fill(0) })).toEqual({ ok: false, reason: expect.stringContaining('more than 1000000 values') });
  });

  it('quotes a long path cut and escaped, so an agent key cannot flood or draw in the reason', () => {
    const key = `${'k'.repeat(500)}\u001b[2J`;
    const r = checkHookInput({ [key]: '\ud800' });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.reason.length).toBeLessThan(200);
      expect(r.reason).not.toContain('\u001b');
    }
  });
});
