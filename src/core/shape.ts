// Records read back from disk (the session policy, render and approval records) are declared
// once as a shape: the check and the type come from it. Hand-rolled, not zod/mini: loading
// zod/mini cost every hook process 7-23 ms here (docs/PERFORMANCE.md), this costs well under one.
import { fail, ok, type Result } from './result.js';
import { isRecord } from './is-record.js';

/**
 * What reading a value found: the value, or where below it it is wrong (keys and indexes, the
 * outermost first) and how. The place is put together only on the way out of a failure: a read
 * that passes, as every hook's policy read does, builds no path strings.
 */
type Read<T> = { ok: true; value: T } | Bad;
interface Bad {
  ok: false;
  at: (string | number)[];
  problem: string;
}

/** A declared record shape: `read` checks a parsed JSON value and returns it typed. */
export interface Shape<T> {
  readonly read: (value: unknown) => Read<T>;
  /** Set on shapes whose key an object may leave out. */
  readonly optional?: true;
}

/** The type a shape declares. */
export type Infer<S> = S extends Shape<infer T> ? T : never;

/** A failure here (`at` empty); each enclosing list or object puts its index or key in front. */
const bad = (problem: string): Bad => ({ ok: false, at: [], problem });
/** `r`, failed under `key` of the value being read. */
const under = (key: string | number, r: Bad): Bad => {
  r.at.unshift(key);
  return r;
};
const good = <T>(value: T): { ok: true; value: T } => ({ ok: true, value });

/** Text; `max` characters at most, matching `pattern`; `problem` replaces the default wording. */
export function text(opts: { max?: number; pattern?: RegExp; problem?: string } = {}): Shape<string> {
  const { max, pattern } = opts;
  const problem = opts.problem ?? `must be ${max === undefined ? 'text' : `text of at most ${max} characters`}${pattern === undefined ? '' : ` matching ${String(pattern)}`}`;
  return { read: (v) => (typeof v === 'string' && (max === undefined || v.length <= max) && (pattern === undefined || pattern.test(v)) ? good(v) : bad(problem)) };
}

/** A finite number; `int` a whole one; at least `min`, or above 0 with `positive`. */
export function number(opts: { int?: boolean; min?: number; positive?: boolean; problem?: string } = {}): Shape<number> {
  const problem = opts.problem ?? `must be ${opts.positive === true ? 'a positive ' : opts.min !== undefined ? `at least ${opts.min}: a ` : 'a '}${opts.int === true ? 'whole number' : 'number'}`;
  return {
    read: (v) =>
      typeof v === 'number' && Number.isFinite(v) && (opts.int !== true || Number.isSafeInteger(v)) && (opts.min === undefined || v >= opts.min) && (opts.positive !== true || v > 0)
        ? good(v)
        : bad(problem),
  };
}

/** `true` or `false`. */
export function boolean(problem = 'must be true or false'): Shape<boolean> {
  return { read: (v) => (typeof v === 'boolean' ? good(v) : bad(problem)) };
}

/** One of a few exact values. */
export function oneOf<const L extends readonly (string | number | boolean)[]>(values: L, problem?: string): Shape<L[number]> {
  const said = problem ?? `must be ${values.map((v) => JSON.stringify(v)).join(' or ')}`;
  return { read: (v) => (values.includes(v as L[number]) ? good(v as L[number]) : bad(said)) };
}

/** Any value, kept as it is (its reader checks it). */
export const anything: Shape<unknown> = { read: (v) => good(v) };

/** A list; at most `max` items. */
export function list<T>(item: Shape<T>, opts: { max?: number; problem?: string } = {}): Shape<T[]> {
  return {
    read(v) {
      if (!Array.isArray(v) || (opts.max !== undefined && v.length > opts.max)) return bad(opts.problem ?? `must be a list${opts.max === undefined ? '' : ` of at most ${opts.max} items`}`);
      const out: T[] = [];
      for (let i = 0; i < v.length; i++) {
        const r = item.read(v[i]);
        if (!r.ok) return under(i, r);
        out.push(r.value);
      }
      return good(out);
    },
  };
}

/** A pair `[a, b]`. */
export function pair<A, B>(a: Shape<A>, b: Shape<B>): Shape<[A, B]> {
  return {
    read(v) {
      if (!Array.isArray(v) || v.length !== 2) return bad('must be a list of two');
      const x = a.read(v[0]);
      if (!x.ok) return under(0, x);
      const y = b.read(v[1]);
      return y.ok ? good([x.value, y.value]) : under(1, y);
    },
  };
}

/** An object of any keys whose values all have one shape. */
export function dictionary<T>(value: Shape<T>): Shape<Record<string, T>> {
  return {
    read(v) {
      if (!isRecord(v)) return bad('must be an object');
      const out: Record<string, T> = {};
      for (const [k, x] of Object.entries(v)) {
        const r = value.read(x);
        if (!r.ok) return under(k, r);
        out[k] = r.value;
      }
      return good(out);
    },
  };
}

/** `null` or the shape. */
export function nullable<T>(shape: Shape<T>): Shape<T | null> {
  return { read: (v) => (v === null ? good(null) : shape.read(v)) };
}

/** A key an object may leave out. */
export function optional<T>(shape: Shape<T>): Shape<T | undefined> & { readonly optional: true } {
  return { optional: true, read: (v) => (v === undefined ? good(undefined) : shape.read(v)) };
}

/** `fallback` when the key is absent. */
export function withDefault<T>(shape: Shape<T>, fallback: T): Shape<T> {
  return { read: (v) => (v === undefined ? good(fallback) : shape.read(v)) };
}

/** The first of `shapes` the value has. */
export function either<S extends readonly Shape<unknown>[]>(shapes: S, problem: string): Shape<Infer<S[number]>> {
  return {
    read(v) {
      for (const s of shapes) {
        const r = s.read(v);
        if (r.ok) return r as Read<Infer<S[number]>>;
      }
      return bad(problem);
    },
  };
}

/** The shape, with a check of its own after it (`problem` is null when the value passes). */
export function refined<T>(shape: Shape<T>, check: (value: T) => string | null): Shape<T> {
  return {
    read(v) {
      const r = shape.read(v);
      if (!r.ok) return r;
      const problem = check(r.value);
      return problem === null ? r : bad(problem);
    },
  };
}

type Props = Record<string, Shape<unknown>>;
type OptionalKeys<P extends Props> = { [K in keyof P]: P[K] extends { readonly optional: true } ? K : never }[keyof P];
type Simplify<T> = { [K in keyof T]: T[K] } & {};
/** The object type a set of properties declares: optional shapes become optional keys. */
export type ObjectOf<P extends Props> = Simplify<{ [K in Exclude<keyof P, OptionalKeys<P>>]: Infer<P[K]> } & { [K in OptionalKeys<P>]?: Infer<P[K]> }>;

/**
 * An object with these keys, checked in order; other keys are dropped, or refused when `strict`.
 * An optional key left out stays out. `renamed` reads an older spelling of a key (`{ timeout_secs: 'timeout_s' }`)
 * when the new one is absent.
 */
export function object<P extends Props>(props: P, opts: { strict?: boolean; renamed?: Record<string, keyof P & string>; problem?: string } = {}): Shape<ObjectOf<P>> {
  const keys = Object.keys(props);
  // Each key's older spelling, looked up once here rather than for every key of every record read.
  const olderNames = new Map<string, string[]>();
  for (const [old, now] of Object.entries(opts.renamed ?? {})) olderNames.set(now, [...(olderNames.get(now) ?? []), old]);
  return {
    read(v) {
      if (!isRecord(v)) return bad(opts.problem ?? 'must be an object');
      if (opts.strict === true) {
        const extra = Object.keys(v).find((k) => !keys.includes(k));
        if (extra !== undefined) return under(extra, bad('is not a key this record has'));
      }
      const out: Record<string, unknown> = {};
      for (const k of keys) {
        let x = v[k];
        if (x === undefined) for (const old of olderNames.get(k) ?? []) if (x === undefined) x = v[old];
        const r = (props[k] as Shape<unknown>).read(x);
        if (!r.ok) return under(k, r);
        if (r.value !== undefined || !(props[k] as Shape<unknown>).optional) out[k] = r.value;
      }
      return good(out as ObjectOf<P>);
    },
  };
}

/** Where a failure is, as `a.b[2]["odd key"]` (a plain key after a dot, an index or any other key in brackets). */
function place(at: readonly (string | number)[]): string {
  let out = '';
  for (const key of at) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_-]*$/.test(key)) out += out === '' ? key : `.${key}`;
    else out += out === '' ? JSON.stringify(key) : `[${JSON.stringify(key)}]`;
  }
  return out;
}

/**
 * Checks a parsed JSON value; the failure names the first key that is wrong and how.
 * @example checkShape(Policy, JSON.parse(text)) // fail('posture must be "fail-open" or "fail-closed"')
 */
export function checkShape<T>(shape: Shape<T>, value: unknown): Result<T> {
  const r = shape.read(value);
  if (r.ok) return ok(r.value);
  return fail(r.at.length === 0 ? `the record ${r.problem}` : `${place(r.at)} ${r.problem}`);
}
