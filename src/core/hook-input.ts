// The hook input as the gates may read it: JSON the agent controls, checked once at the boundary
// for what would break a helper later (a lone UTF-16 surrogate, nesting past any real tool's,
// more values than any call holds). Input that fails is the agent's to fix, never an
// infrastructure failure, so it is refused in every posture.
import { fail, ok, type Result } from './result.js';

/** Largest hook input read (UTF-8 bytes): a call past it (a Write of more) is refused, not read whole into every hook process. */
export const MAX_INPUT_BYTES = 64 * 1024 * 1024;

/**
 * Deepest nesting of a hook input read. Real tool inputs nest a few levels (MultiEdit's edits,
 * an MCP tool's arguments); 64 leaves room for any of them and keeps every helper, recursive
 * or not, far from the stack's limit.
 */
export const MAX_INPUT_DEPTH = 64;

/**
 * Most values (strings, numbers, keys' values, array items) in one hook input: a large Write is
 * one long string, and a million separate values is no tool call but a way to make each helper slow.
 */
const MAX_INPUT_VALUES = 1_000_000;

/** Longest stretch of a path quoted in a reason: keys are the agent's, and may be long. */
const MAX_PATH_SHOWN = 80;

/** Where in the input, quoted and escaped (JSON escapes a lone surrogate or a control character). */
const where = (path: string, whole: string): string => (path === '' ? whole : JSON.stringify(path.length > MAX_PATH_SHOWN ? `${path.slice(0, MAX_PATH_SHOWN)}…` : path));

/** `String.prototype.isWellFormed` (ES2024, in every Node this runs on): no lone surrogate, checked natively. */
const wellFormed = (s: string): boolean => (s as string & { isWellFormed(): boolean }).isWellFormed();

/**
 * Checks a parsed hook input without recursion: an object at the top, every string and key
 * well-formed Unicode, at most {@link MAX_INPUT_DEPTH} levels and {@link MAX_INPUT_VALUES} values.
 * The reason names where the problem is (`tool_input.description`).
 * @example checkHookInput(JSON.parse('{"tool_input":{"d":"\\ud800"}}')) // fail('"tool_input.d" holds a lone UTF-16 surrogate …')
 */
export function checkHookInput(input: unknown): Result<Record<string, unknown>> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return fail('is not a JSON object');
  const stack: [value: unknown, path: string, depth: number][] = [[input, '', 0]];
  let values = 0;
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const [value, path, depth] = top;
    if (++values > MAX_INPUT_VALUES) return fail(`holds more than ${MAX_INPUT_VALUES} values`);
    if (typeof value === 'string') {
      if (!wellFormed(value)) return fail(`${where(path, 'a value')} holds a lone UTF-16 surrogate (an unpaired \\ud800–\\udfff escape), which is not text`);
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    if (depth >= MAX_INPUT_DEPTH) return fail(`${where(path, 'it')} is nested deeper than ${MAX_INPUT_DEPTH} levels`);
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push([value[i], `${path}[${i}]`, depth + 1]);
      continue;
    }
    for (const [key, v] of Object.entries(value)) {
      const at = path === '' ? key : `${path}.${key}`;
      if (!wellFormed(key)) return fail(`a key in ${where(path, 'the input')} holds a lone UTF-16 surrogate, which is not text`);
      stack.push([v, at, depth + 1]);
    }
  }
  return ok(input as Record<string, unknown>);
}
