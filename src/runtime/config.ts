// Finds and loads the project's `gatehouse.yaml` / `gatehouse.yml` / `gatehouse.toml`, validates
// it with the one schema in config-schema.ts, and reports each problem as `file:line: key.path: …`.
import { readFileSync, statSync } from 'node:fs';
import { extname, join, resolve } from 'node:path';
import { LineCounter, isMap, isScalar, isSeq, parseDocument } from 'yaml';
import { TomlError, parse as parseToml } from 'smol-toml';
import { fail, ok } from '../core/result.js';
import type { Result } from '../core/result.js';
import type { Posture, ProducerSpec } from '../core/policy.js';
import { ConfigFile, describeIssues } from './config-schema.js';
import type { ConfigProblem } from './config-schema.js';

/** The `gate` section after validation, with every default filled in. */
export interface GateConfig {
  allow: string[];
  protect: string[];
  producers: ProducerSpec[];
  sequential: boolean;
  max_stop_blocks: number;
  posture: Posture;
  record_allows: boolean;
}

/** The `stop_hooks` and `verifiers` sections after validation. */
export interface TurnConfig {
  stop_hooks: { name: string; command: string; timeout_secs: number }[];
  verifiers: {
    enabled: boolean;
    order?: string[] | undefined;
    repeat_threshold: number | null;
    halt_threshold: number | null;
    max_tool_calls: number | null;
    failure_threshold: number | null;
    goal?: { objective: string; gate_command: string; timeout_secs: number } | undefined;
  };
}

/** The `approvals` and `permissions` sections after validation. */
export interface ApprovalsConfig {
  interactive: boolean;
  timeout_seconds: number;
  smart_auto_approve: boolean;
  tokens: { principal: string; scopes: ('approvals:read' | 'approvals:resolve')[]; sha256?: string | undefined; env?: string | undefined }[];
  always_allow: { tool: string; exact?: string | undefined; glob?: string | undefined; regex?: string | undefined }[];
}
export interface PermissionsConfig {
  profile?: string | undefined;
  custom: Record<string, { tools: Record<string, boolean | { paths?: string[] | undefined }>; shell?: { allow: string[] } | undefined }>;
}

/** A loaded config and the file it came from (`null` when the project has none). */
export interface LoadedConfig {
  file: string | null;
  gate: GateConfig;
  turn: TurnConfig;
  approvals: ApprovalsConfig;
  permissions: PermissionsConfig;
}

/** File names looked for at the project root, in this order; at most one may exist. */
export const CONFIG_FILE_NAMES: readonly string[] = ['gatehouse.yaml', 'gatehouse.yml', 'gatehouse.toml'];

/** A config is a page of settings; anything past 1 MiB is the wrong file, so do not read it whole. */
const MAX_CONFIG_BYTES = 1024 * 1024;

type Format = 'yaml' | 'toml';
type KeyPath = readonly (string | number)[];

/**
 * Returns the config file at `root`, `null` when there is none, or a failure when several exist.
 * @example findConfigFile('/repo') // ok('/repo/gatehouse.yaml')
 */
export function findConfigFile(root: string): Result<string | null> {
  const dir = resolve(root);
  const rootStat = statSync(dir, { throwIfNoEntry: false });
  if (rootStat === undefined || !rootStat.isDirectory()) {
    return fail(`Project root ${dir} is not a directory; pass the folder that holds the project (and its gatehouse.yaml).`);
  }
  const found: string[] = [];
  for (const name of CONFIG_FILE_NAMES) {
    const file = join(dir, name);
    const st = statSync(file, { throwIfNoEntry: false });
    if (st === undefined) continue;
    if (!st.isFile()) return fail(`${file} is not a regular file; remove it or replace it with a config file.`);
    found.push(file);
  }
  if (found.length > 1) {
    return fail(`Found ${found.join(' and ')}; keep one config file and delete the other, so there is one source of settings.`);
  }
  return ok(found[0] ?? null);
}

/**
 * Loads and validates the config of the project at `root`, or the explicit `file` (relative to `root`).
 * With no file at the root, returns the defaults and `file: null`; an explicit file must exist.
 * @example loadConfig({ root: '/repo' }) // ok({ file: '/repo/gatehouse.yaml', gate: { allow: ['src/**'], … } })
 */
export function loadConfig(opts: { root: string; file?: string }): Result<LoadedConfig> {
  let file: string | null;
  if (opts.file !== undefined) {
    file = resolve(opts.root, opts.file);
  } else {
    const found = findConfigFile(opts.root);
    if (!found.ok) return found;
    file = found.value;
  }
  if (file === null) return ok({ file: null, ...defaults() });

  const format = formatOf(file);
  if (format === null) return fail(`Config file ${file} has an unknown extension; name it gatehouse.yaml or gatehouse.toml.`);
  const text = readConfigText(file);
  if (!text.ok) return text;
  const parsed = parseConfigSections(text.value, format, file);
  return parsed.ok ? ok({ file, ...parsed.value }) : parsed;
}

/**
 * Parses and validates config text; `fileLabel` is used in messages only.
 * @example parseConfigText('gate:\n  allow: ["src/**"]\n', 'yaml', 'gatehouse.yaml')
 */
export function parseConfigText(text: string, format: Format, fileLabel: string): Result<GateConfig> {
  const all = parseConfigSections(text, format, fileLabel);
  return all.ok ? ok(all.value.gate) : all;
}

/** Parses and validates every section of config text. */
export function parseConfigSections(text: string, format: Format, fileLabel: string): Result<Omit<LoadedConfig, 'file'>> {
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const parsed = format === 'yaml' ? parseYaml(source, fileLabel) : parseTomlText(source, fileLabel);
  if (!parsed.ok) return parsed;
  const { data, lineOf } = parsed.value;

  const checked = ConfigFile.safeParse(data ?? {}, { reportInput: true });
  if (checked.success) {
    const gate: GateConfig = checked.data.gate;
    const turn: TurnConfig = { stop_hooks: checked.data.stop_hooks, verifiers: checked.data.verifiers };
    return ok({ gate, turn, approvals: checked.data.approvals, permissions: checked.data.permissions });
  }
  const lines = describeIssues(checked.error.issues)
    .map((p) => ({ ...p, line: lineOf(p.path) }))
    .sort((a, b) => (a.line ?? 0) - (b.line ?? 0))
    .map((p) => formatProblem(fileLabel, p.line, p));
  return fail(lines.join('\n'));
}

/** A parsed document and a way to find the line of a key path in its text. */
interface ParsedText {
  data: unknown;
  lineOf: (path: KeyPath) => number | null;
}

function parseYaml(text: string, fileLabel: string): Result<ParsedText> {
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

function parseTomlText(text: string, fileLabel: string): Result<ParsedText> {
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

/** Ends a parser message with exactly one full stop. */
function sentence(message: string): string {
  const trimmed = message.trim();
  return /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

function formatProblem(fileLabel: string, line: number | null, problem: ConfigProblem): string {
  const where = line === null ? fileLabel : `${fileLabel}:${line}`;
  return `${where}: ${formatKeyPath(problem.path)}: ${problem.message}`;
}

/** `['gate', 'producers', 1, 'timeout_s']` → `gate.producers[1].timeout_s`. */
export function formatKeyPath(path: KeyPath): string {
  if (path.length === 0) return '(top level)';
  return path
    .map((p, i) => (typeof p === 'number' ? `[${p}]` : /^[A-Za-z_][A-Za-z0-9_-]*$/.test(p) ? `${i === 0 ? '' : '.'}${p}` : `[${JSON.stringify(p)}]`))
    .join('');
}

function defaults(): Omit<LoadedConfig, 'file'> {
  const d = ConfigFile.parse({});
  return { gate: d.gate, turn: { stop_hooks: d.stop_hooks, verifiers: d.verifiers }, approvals: d.approvals, permissions: d.permissions };
}

function formatOf(file: string): Format | null {
  const ext = extname(file).toLowerCase();
  if (ext === '.yaml' || ext === '.yml') return 'yaml';
  if (ext === '.toml') return 'toml';
  return null;
}

function readConfigText(file: string): Result<string> {
  try {
    const st = statSync(file, { throwIfNoEntry: false });
    if (st === undefined) return fail(`Config file ${file} does not exist; check the path, or omit it to use ${CONFIG_FILE_NAMES.join(' / ')} at the project root.`);
    if (!st.isFile()) return fail(`Config file ${file} is not a regular file.`);
    if (st.size > MAX_CONFIG_BYTES) return fail(`Config file ${file} is ${st.size} bytes; a Gatehouse config is at most ${MAX_CONFIG_BYTES} bytes. Is it the right file?`);
    return ok(readFileSync(file, 'utf8'));
  } catch (err) {
    return fail(`Cannot read config file ${file}: ${(err as Error).message}`);
  }
}
