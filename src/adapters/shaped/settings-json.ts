// Strict reading and minimal text edits for a JSON settings file. An edit inserts or deletes
// only the bytes it must, copying the file's own indentation and line endings.
import { applyEdits, findNodeAtLocation, parseTree } from 'jsonc-parser';
import type { JSONPath, Node } from 'jsonc-parser';
import { fail, ok } from '../../core/result.js';
import type { Result } from '../../core/result.js';

/** Indent unit used when the file has no indented line to copy (what Claude Code writes). */
const DEFAULT_INDENT = '  ';

/** A JSON object value, as `JSON.parse` returns it. */
export type JsonObject = Record<string, unknown>;

/** True for a JSON object (not an array, not null). */
export function isJsonObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Parses `text` as strict JSON, as Claude Code does: comments, trailing commas and a
 * byte-order mark are errors. Duplicate keys are refused too, because `JSON.parse` keeps the
 * last one while an edit would land on the first.
 * @example parseStrictJson('{"a": 1}') // ok({ a: 1 })
 */
export function parseStrictJson(text: string): Result<unknown> {
  if (text.startsWith('\uFEFF')) return fail('starts with a byte-order mark');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return fail(`is not valid JSON (${(err as Error).message})`);
  }
  const dup = findDuplicateKey(parseTree(text));
  return dup === undefined ? ok(value) : fail(`has the key ${JSON.stringify(dup)} twice in one object`);
}

function findDuplicateKey(node: Node | undefined): string | undefined {
  if (!node?.children) return undefined;
  if (node.type === 'object') {
    const seen = new Set<unknown>();
    for (const prop of node.children) {
      const key: unknown = prop.children?.[0]?.value;
      if (seen.has(key)) return String(key);
      seen.add(key);
    }
  }
  for (const child of node.children) {
    const dup = findDuplicateKey(child);
    if (dup !== undefined) return dup;
  }
  return undefined;
}

interface Style {
  eol: string;
  indent: string;
}

function detectStyle(text: string): Style {
  const indented = /\n([ \t]+)\S/.exec(text)?.[1];
  const indent = indented === undefined ? DEFAULT_INDENT : indented.includes('\t') ? '\t' : indented;
  return { eol: text.includes('\r\n') ? '\r\n' : '\n', indent };
}

function lineIndent(text: string, offset: number): string {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart, offset))?.[0] ?? '';
}

function pretty(value: unknown, base: string, style: Style): string {
  return JSON.stringify(value, null, style.indent)
    .split('\n')
    .join(style.eol + base);
}

function containerAt(text: string, path: JSONPath, type: 'object' | 'array'): Node {
  const node = findNodeAtLocation(parseTree(text) as Node, path);
  if (node?.type !== type) throw new Error(`settings-json: no ${type} at [${path.join(', ')}]`);
  return node;
}

/**
 * Adds `value` at the end of the container at `path`: as property `key` of an object, or
 * (no key) as the last element of an array. A container laid out one child per line gets a
 * new line in the same indentation; an inline one gets an inline child. The caller checks
 * that `key` is not already there.
 * @example insertValue('{"a": []}', ['a'], 1) // '{"a": [1]}'
 */
export function insertValue(text: string, path: JSONPath, value: unknown, key?: string): string {
  const container = containerAt(text, path, key === undefined ? 'array' : 'object');
  const style = detectStyle(text);
  const children = container.children ?? [];
  const last = children.at(-1);
  const prefix = (colon: string) => (key === undefined ? '' : JSON.stringify(key) + colon);
  if (last !== undefined) {
    const end = last.offset + last.length;
    const lineStart = text.lastIndexOf('\n', last.offset - 1) + 1;
    const lead = text.slice(lineStart, last.offset);
    let content: string;
    if (/^[ \t]*$/.test(lead)) {
      content = ',' + style.eol + lead + prefix(': ') + pretty(value, lead, style);
    } else {
      // Copy the inline layout: the gap before the last child, and its colon spacing.
      const gap = /[ \t]*$/.exec(lead)?.[0] ?? '';
      const colon = last.colonOffset !== undefined && text[last.colonOffset + 1] === ' ' ? ': ' : ':';
      content = ',' + gap + prefix(colon) + JSON.stringify(value);
    }
    return applyEdits(text, [{ offset: end, length: 0, content }]);
  }
  // An empty container: open it onto new lines unless the whole document is on one line.
  const root = parseTree(text) as Node;
  const expand = (root.children?.length ?? 0) === 0 || text.slice(root.offset, root.offset + root.length).includes('\n');
  const inner = { offset: container.offset + 1, length: container.length - 2 };
  if (!expand) return applyEdits(text, [{ ...inner, content: prefix(':') + JSON.stringify(value) }]);
  const base = lineIndent(text, container.offset);
  const child = base + style.indent;
  const content = style.eol + child + prefix(': ') + pretty(value, child, style) + style.eol + base;
  return applyEdits(text, [{ ...inner, content }]);
}

/**
 * Deletes the array element or object property that `path` names, with the separator that
 * belongs to it; the neighbours' bytes stay as they were.
 * @example removeValue('[1, 2]', [1]) // '[1]'
 */
export function removeValue(text: string, path: JSONPath): string {
  const last = path.at(-1);
  const container = containerAt(text, path.slice(0, -1), typeof last === 'number' ? 'array' : 'object');
  const children = container.children ?? [];
  const index = typeof last === 'number' ? last : children.findIndex((p) => p.children?.[0]?.value === last);
  const node = children[index];
  if (node === undefined) throw new Error(`settings-json: nothing at [${path.join(', ')}]`);
  let start: number;
  let end: number;
  const prev = children[index - 1];
  const next = children[index + 1];
  if (prev !== undefined) {
    // From the end of the previous sibling: takes the comma and the gap before this node.
    start = prev.offset + prev.length;
    end = node.offset + node.length;
  } else if (next !== undefined) {
    // First of several: the next sibling moves into this node's place and indentation.
    start = node.offset;
    end = next.offset;
  } else {
    // The only child: the container becomes empty, `[]` or `{}`.
    start = container.offset + 1;
    end = container.offset + container.length - 1;
  }
  return applyEdits(text, [{ offset: start, length: end - start, content: '' }]);
}
