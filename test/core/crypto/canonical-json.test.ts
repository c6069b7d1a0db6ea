import { describe, expect, it } from 'vitest';
import { canonicalJson, isCanonicalJson } from '../../../src/core/crypto/canonical-json.js';

describe('canonicalJson', () => {
  it('matches the RFC 8785 sample (values.json of the reference test data)', () => {
    const input = JSON.parse(
      '{"numbers": [1E30, 4.50, 333333333.33333329, 2e-3, 0.000000000000000000000000001],' +
        ' "escaping": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/",' +
        ' "literals": [null, true, false]}',
    ) as unknown;
    expect(canonicalJson(input)).toBe('{"escaping":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/","literals":[null,true,false],"numbers":[1e+30,4.5,333333333.3333333,0.002,1e-27]}');
  });

  it('sorts keys by UTF-16 code units, not by locale or code point (weird.json)', () => {
    const input = {
      '\u20ac': 'Euro Sign',
      '1': 'One',
      '\u0080': 'Control\u007f',
      '\ud83d\ude02': 'Smiley',
      '\u00f6': 'Latin Small Letter O With Diaeresis',
      '\ufb33': 'Hebrew Letter Dalet With Dagesh',
      '</script>': 'Browser Challenge',
    };
    expect(canonicalJson(input)).toBe(
      '{"1":"One","</script>":"Browser Challenge","\u0080":"Control\u007f","\u00f6":"Latin Small Letter O With Diaeresis",' +
        '"\u20ac":"Euro Sign","\ud83d\ude02":"Smiley","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    );
  });

  it('ignores the locale when sorting (french.json)', () => {
    const input = { peach: 'This sorting order', péché: 'is wrong according to French', pêche: 'but canonicalization MUST', sin: 'ingnore locale' };
    expect(canonicalJson(input)).toBe('{"peach":"This sorting order","péché":"is wrong according to French","pêche":"but canonicalization MUST","sin":"ingnore locale"}');
  });

  it('writes numbers in the ECMAScript shortest round-trip form of RFC 8785 appendix B', () => {
    const cases: [number, string][] = [
      [0, '0'],
      [-0, '0'],
      [5e-324, '5e-324'],
      [-5e-324, '-5e-324'],
      [1.7976931348623157e308, '1.7976931348623157e+308'],
      [9007199254740992, '9007199254740992'],
      [295147905179352830000, '295147905179352830000'],
      [1e21, '1e+21'],
      [1e23, '1e+23'],
      [0.000001, '0.000001'],
      [1e-7, '1e-7'],
    ];
    for (const [n, text] of cases) expect(canonicalJson(n)).toBe(text);
  });

  it('sorts nested objects and keeps array order', () => {
    expect(canonicalJson({ b: [{ z: 1, a: 2 }, 3], a: { d: null, c: true } })).toBe('{"a":{"c":true,"d":null},"b":[{"a":2,"z":1},3]}');
  });

  it('refuses values JSON cannot carry exactly, naming where they sit', () => {
    expect(() => canonicalJson({ a: [1, Number.NaN] })).toThrow(/\$\.a\[1\] is NaN/);
    expect(() => canonicalJson({ a: Infinity })).toThrow(/Infinity/);
    expect(() => canonicalJson({ a: undefined })).toThrow(/\$\.a is undefined/);
    expect(() => canonicalJson([undefined])).toThrow(/undefined/);
    expect(() => canonicalJson({ f: () => 1 })).toThrow(/function/);
    expect(() => canonicalJson({ n: 10n })).toThrow(/bigint/);
    expect(() => canonicalJson({ d: new Date(0) })).toThrow(/Date object/);
    expect(() => canonicalJson({ s: 'a\ud800b' })).toThrow(/lone UTF-16 surrogate/);
  });

  it('accepts objects without a prototype', () => {
    const o = Object.create(null) as Record<string, unknown>;
    o.b = 1;
    o.a = 2;
    expect(canonicalJson(o)).toBe('{"a":2,"b":1}');
  });
});

describe('isCanonicalJson', () => {
  const check = (text: string): boolean => isCanonicalJson(text, JSON.parse(text));

  it('accepts canonical texts, including ones whose keys JavaScript reorders', () => {
    expect(check('{"a":[1,{"b":null,"c":"\\u0000"}],"d":1e+30}')).toBe(true);
    expect(check('{"10":1,"9":2}')).toBe(true);
    expect(check('"\ud83d\ude00"'.replace(/\\u[0-9a-f]{4}/g, (m) => JSON.parse(`"${m}"`) as string))).toBe(true);
  });

  it('rejects every other text for the same value', () => {
    for (const text of ['{"b":1,"a":2}', '{ "a":1}', '{"a":1.0}', '{"a":1E30}', '{"a":-0}', '{"a":"\\u0041"}', '{"a":"\\/"}', '{"a":1,"a":1}', '{"9":2,"10":1}', '"\\ud800"', '"\\ud83d\\ude00"']) {
      expect(check(text), text).toBe(false);
    }
  });
});
