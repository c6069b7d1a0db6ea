import { describe, expect, it } from 'vitest';
import { boolean, checkShape, dictionary, either, list, nullable, number, object, oneOf, optional, pair, refined, text, withDefault } from '../../src/core/shape.js';

const Inner = object({ name: text({ max: 5 }), tags: list(text(), { max: 3 }) });
const Outer = object(
  {
    v: oneOf([1]),
    items: list(Inner),
    env: dictionary(number({ int: true })),
    pairs: list(pair(text(), boolean())),
    note: optional(nullable(text())),
    level: withDefault(number(), 3),
    timeout_s: optional(number({ positive: true })),
  },
  { renamed: { timeout_secs: 'timeout_s', timeout: 'timeout_s' } },
);
const good = { v: 1, items: [{ name: 'a', tags: ['x'] }], env: { A: 1 }, pairs: [['p', true]] };

const problem = (value: unknown): string => {
  const r = checkShape(Outer, value);
  if (r.ok) throw new Error('expected a failure');
  return r.reason;
};

describe('checkShape', () => {
  it('returns the value typed, dropping unknown keys, filling defaults and leaving absent optional keys out', () => {
    const r = checkShape(Outer, { ...good, extra: 'dropped' });
    expect(r.ok && r.value).toEqual({ ...good, level: 3 });
    expect(r.ok && Object.hasOwn(r.value, 'note')).toBe(false);
  });

  it('names the place of a failure: keys after dots, indexes and odd keys in brackets', () => {
    expect(problem({ ...good, v: 2 })).toBe('v must be 1');
    expect(
      problem({
        ...good,
        items: [
          { name: 'a', tags: [] },
          { name: 'toolong', tags: [] },
        ],
      }),
    ).toBe('items[1].name must be text of at most 5 characters');
    expect(problem({ ...good, items: [{ name: 'a', tags: ['x', 7] }] })).toBe('items[0].tags[1] must be text');
    expect(problem({ ...good, env: { A: 1, 'two words': 1.5 } })).toBe('env["two words"] must be a whole number');
    expect(problem({ ...good, env: { ok_key: 'x' } })).toBe('env.ok_key must be a whole number');
    expect(problem({ ...good, pairs: [['p', 'yes']] })).toBe('pairs[0][1] must be true or false');
    expect(problem({ ...good, pairs: [['p']] })).toBe('pairs[0] must be a list of two');
    expect(problem(null)).toBe('the record must be an object');
    expect(problem({ ...good, items: [{ name: 'a', tags: ['1', '2', '3', '4'] }] })).toBe('items[0].tags must be a list of at most 3 items');
  });

  it('names an odd key at the top without brackets, as before', () => {
    const r = checkShape(dictionary(number()), { 'a b': 'x' });
    expect(!r.ok && r.reason).toBe('"a b" must be a number');
    const s = checkShape(list(number()), ['x']);
    expect(!s.ok && s.reason).toBe('[0] must be a number');
  });

  it('refuses a key a strict record does not have, by its place', () => {
    const Strict = object({ inner: object({ a: number() }, { strict: true }) });
    const r = checkShape(Strict, { inner: { a: 1, b: 2 } });
    expect(!r.ok && r.reason).toBe('inner.b is not a key this record has');
  });

  it('reads an older spelling of a key only when the new one is absent, the first older one present winning', () => {
    const read = (v: object): unknown => {
      const r = checkShape(Outer, { ...good, ...v });
      return r.ok ? r.value.timeout_s : r.reason;
    };
    expect(read({ timeout_secs: 5 })).toBe(5);
    expect(read({ timeout: 6 })).toBe(6);
    expect(read({ timeout_s: 7, timeout_secs: 5 })).toBe(7);
    expect(read({ timeout_secs: 5, timeout: 6 })).toBe(5);
    expect(read({ timeout_secs: -1 })).toBe('timeout_s must be a positive number');
    // A null older spelling is what is read (and refused), not skipped for the next one.
    expect(read({ timeout_secs: null, timeout: 6 })).toBe('timeout_s must be a positive number');
  });

  it('takes the first shape of an either that fits, and a refinement after its shape', () => {
    const Either = either([number(), text()], 'must be a number or text');
    expect(checkShape(Either, 'x')).toEqual({ ok: true, value: 'x' });
    const e = checkShape(object({ a: Either }), { a: true });
    expect(!e.ok && e.reason).toBe('a must be a number or text');
    const Even = refined(number(), (n) => (n % 2 === 0 ? null : 'must be even'));
    const r = checkShape(list(Even), [2, 3]);
    expect(!r.ok && r.reason).toBe('[1] must be even');
  });
});
