// The text half of loading a config: YAML and TOML parsed into data, with a way to find the
// line of any key path in the text, so each problem can be reported as `file:line: key.path: …`.
import { LineCounter, isMap, isScalar, isSeq, parseDocument } from 'yaml';
import { TomlError, parse as parseToml } from 'smol-toml';
import { fail, ok, type Result } from '../core/result.js';
import { sentence } from '../core/sentence.js';

/** A key path into a parsed config: keys and list indexes. */
export type KeyPath = readonly (string | number)[];

/** A parsed document and a way to find the line of a key path in its text. */
export interface ParsedText {
  data: unknown;
  lineOf: (path: KeyPath) => number | null;
}

/** Parses YAML config text; a syntax error names its line. `fileLabel` is for messages only. */
export function parseYaml(text: string, fileLabel: string): Result<ParsedText> {
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter, prettyErrors: false });
  const error = doc.errors[0];
  if (error !== undefined) {
    const line = counter.linePos(error.pos[0]).line;
    return fail(`${fileLabel}:${line}: YAML syntax error: ${sentence(error.message)} Fix the syntax and try again.`);
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    return fail(`${fileLabel}: cannot read the YAML document: ${(err as Error).message}`);
  }
  return ok({ data, lineOf: (path) => yamlLine(doc.contents, counter, path) });
}

/** Line of the deepest node on `path` that exists: the key's line for a mapping entry, the item's line in a list. */
function yamlLine(root: unknown, counter: LineCounter, path: KeyPath): number | null {
  const lineAt = (node: unknown): number | null => {
    const range = (node as { range?: [number, number, number] } | null)?.range;
    return range === undefined ? null : counter.linePos(range[0]).line;
  };
  let node = root;
  let line = lineAt(node);
  for (const segment of path) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(segment));
      if (pair === undefined) break;
      line = lineAt(pair.key) ?? line;
      node = pair.value;
    } else if (isSeq(node) && typeof segment === 'number') {
      const item: unknown = node.items[segment];
      if (item === undefined) break;
      line = lineAt(item) ?? line;
      node = item;
    } else {
      break;
    }
  }
  return line;
}

/** Parses TOML config text; a syntax error names its line. `fileLabel` is for messages only. */
export function parseTomlText(text: string, fileLabel: string): Result<ParsedText> {
  let data: unknown;
  try {
    data = parseToml(text);
  } catch (err) {
    if (!(err instanceof TomlError)) throw err;
    const reason = (err.message.split('\n')[0] ?? '').replace(/^Invalid TOML document: /, '');
    return fail(`${fileLabel}:${err.line}: TOML syntax error: ${sentence(reason)} Fix the syntax and try again.`);
  }
  const keyLines = tomlKeyLines(text);
  return ok({
    data,
    lineOf: (path) => {
      for (let n = path.length; n > 0; n--) {
        const line = keyLines.get(JSON.stringify(path.slice(0, n)));
        if (line !== undefined) return line;
      }
      return null;
    },
  });
}

/**
 * Best-effort map from key path (JSON of the path) to the first line that writes it.
 * smol-toml keeps no positions, so this scans lines for table headers (`[a.b]`, `[[a.b]]`,
 * counting array-of-tables items) and `key = …` lines (dotted keys too), skipping the bodies of
 * multi-line strings. Items of inline arrays are not indexed: a problem inside one is reported
 * at the line of the key that holds the array.
 */
function tomlKeyLines(text: string): Map<string, number> {
  const lines = new Map<string, number>();
  const arrayCounts = new Map<string, number>();
  let table: (string | number)[] = [];
  let inMultiline = false;

  // Inserts the current index after each prefix that is an array of tables.
  const resolveHeader = (parts: string[]): (string | number)[] => {
    const out: (string | number)[] = [];
    for (const part of parts) {
      out.push(part);
      const count = arrayCounts.get(JSON.stringify(out));
      if (count !== undefined) out.push(count - 1);
    }
    return out;
  };
  const record = (path: (string | number)[], line: number): void => {
    const key = JSON.stringify(path);
    if (!lines.has(key)) lines.set(key, line);
  };

  text.split(/\r?\n/).forEach((raw, i) => {
    const line = i + 1;
    const s = raw.trim();
    const fences = (s.match(/"""|'''/g) ?? []).length;
    if (inMultiline) {
      if (fences % 2 === 1) inMultiline = false;
      return;
    }
    const arrayHeader = /^\[\[\s*(.+?)\s*\]\]/.exec(s);
    const header = arrayHeader === null ? /^\[\s*(.+?)\s*\]/.exec(s) : null;
    if (arrayHeader !== null) {
      const parts = splitDottedKey(arrayHeader[1] ?? '');
      if (parts === null) return;
      const parent = resolveHeader(parts.slice(0, -1));
      const own = [...parent, parts[parts.length - 1] as string];
      const count = (arrayCounts.get(JSON.stringify(own)) ?? 0) + 1;
      arrayCounts.set(JSON.stringify(own), count);
      record(own, line);
      table = [...own, count - 1];
      record(table, line);
    } else if (header !== null) {
      const parts = splitDottedKey(header[1] ?? '');
      if (parts === null) return;
      table = resolveHeader(parts);
      record(table, line);
    } else {
      const eq = s.indexOf('=');
      const parts = eq > 0 ? splitDottedKey(s.slice(0, eq)) : null;
      if (parts !== null) parts.forEach((_, n) => record([...table, ...parts.slice(0, n + 1)], line));
    }
    if (fences % 2 === 1) inMultiline = true;
  });
  return lines;
}

/** Splits a TOML key like `gate."my key".x` into parts, or null when it is not a key. */
function splitDottedKey(key: string): string[] | null {
  const parts: string[] = [];
  const re = /\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|([A-Za-z0-9_-]+))\s*(\.|$)/y;
  let m: RegExpExecArray | null;
  while (re.lastIndex < key.length && (m = re.exec(key)) !== null) {
    parts.push(m[1] ?? m[2] ?? m[3] ?? '');
    if (m[4] === '') return parts;
  }
  return null;
}
