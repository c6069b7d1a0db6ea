// RFC 8785 (JCS) canonical JSON: one byte-exact text per JSON value, so the same
// event always hashes and signs the same way on any machine.

// In a `u` regex a paired surrogate is one code point, so this matches only lone
// halves: RFC 8785 requires I-JSON, whose strings are well-formed Unicode.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/** Thrown for a value JSON cannot carry exactly; `path` names where it sits. */
class NotJsonError extends Error {
  constructor(
    readonly what: string,
    readonly path: string[] = [],
  ) {
    super(what);
  }
}

/**
 * Serialises `value` as RFC 8785 canonical JSON: object keys sorted by UTF-16 code
 * units, no whitespace, numbers and strings exactly as ECMAScript `JSON.stringify`.
 * Throws on what JSON cannot carry exactly: non-finite numbers, `undefined`,
 * functions, symbols, bigints, lone surrogates and non-plain objects (Date, Map, …).
 * @example canonicalJson({ b: 1, a: [true, 'x'] }) // '{"a":[true,"x"],"b":1}'
 */
export function canonicalJson(value: unknown): string {
  try {
    return serialise(value);
  } catch (err) {
    if (!(err instanceof NotJsonError)) throw err;
    throw new Error(`canonicalJson: $${err.path.reverse().join('')} ${err.what}`);
  }
}

function serialise(value: unknown): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw new NotJsonError(`is ${value}, which JSON cannot represent`);
      // ECMAScript Number-to-String is exactly the RFC 8785 number form (-0 becomes 0).
      return JSON.stringify(value);
    case 'string':
      if (LONE_SURROGATE.test(value)) throw new NotJsonError('holds a lone UTF-16 surrogate, which is not valid I-JSON');
      return JSON.stringify(value);
    case 'object':
      return Array.isArray(value) ? serialiseArray(value) : serialiseObject(value);
    default:
      throw new NotJsonError(`is ${typeof value === 'undefined' ? 'undefined' : `a ${typeof value}`}, which JSON cannot represent`);
  }
}

function serialiseArray(items: readonly unknown[]): string {
  let out = '[';
  let i = 0;
  try {
    for (; i < items.length; i++) {
      if (i > 0) out += ',';
      out += serialise(items[i]);
    }
  } catch (err) {
    if (err instanceof NotJsonError) err.path.push(`[${i}]`);
    throw err;
  }
  return out + ']';
}

function serialiseObject(obj: object): string {
  const proto: unknown = Object.getPrototypeOf(obj);
  if (proto !== Object.prototype && proto !== null) {
    throw new NotJsonError(`is a ${(obj.constructor as { name?: string } | undefined)?.name ?? 'non-plain'} object; pass plain objects only`);
  }
  // The default sort compares UTF-16 code units, which is exactly the RFC 8785 order.
  const keys = Object.keys(obj).sort();
  const record = obj as Record<string, unknown>;
  let out = '{';
  let key = '';
  try {
    for (let i = 0; i < keys.length; i++) {
      key = keys[i]!;
      if (i > 0) out += ',';
      out += serialise(key) + ':' + serialise(record[key]);
    }
  } catch (err) {
    if (err instanceof NotJsonError) err.path.push(`.${key}`);
    throw err;
  }
  return out + '}';
}

/** Whether every object inside `value` lists its keys in canonical (UTF-16) order. */
export function keysSorted(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!keysSorted(value[i])) return false;
    return true;
  }
  const record = value as Record<string, unknown>;
  let previous: string | null = null;
  for (const key in record) {
    if (previous !== null && !(previous < key)) return false;
    if (!keysSorted(record[key])) return false;
    previous = key;
  }
  return true;
}

/**
 * Whether `text` is exactly the canonical JSON of `parsed` (= JSON.parse(text)).
 * Fast path for the verifier: when every object's keys already come sorted, native
 * JSON.stringify writes the canonical form. A `\ud` escape (a lone surrogate, or a
 * backslash before "ud") and integer-like keys, which JS objects reorder, take the
 * exact path.
 * @example isCanonicalJson('{"a":1}', { a: 1 }) // true
 */
export function isCanonicalJson(text: string, parsed: unknown): boolean {
  if (!text.includes('\\ud') && keysSorted(parsed) && JSON.stringify(parsed) === text) return true;
  try {
    return canonicalJson(parsed) === text;
  } catch {
    return false;
  }
}
