// Finds and loads the project's `gatehouse.yaml` / `gatehouse.yml` / `gatehouse.toml`, validates
// it with the one schema in config-schema.ts, and reports each problem as `file:line: key.path: …`.
import { statSync } from 'node:fs';
import { readRegularText } from './small-file.js';
import { extname, join, resolve } from 'node:path';
import { fail, ok } from '../core/result.js';
import type { Result } from '../core/result.js';
import { ConfigFile, describeIssues, OLD_TIMEOUT_KEYS } from './config-schema.js';
import { isRecord } from '../core/is-record.js';
import type { ConfigProblem } from './config-schema.js';
import { parseTomlText, parseYaml, type KeyPath } from './config-text.js';
import type { StoreSpec } from './store/store-setting.js';

/** The `gate` section after validation, with every default filled in. */
export type GateConfig = ConfigFile['gate'];
/** The `stop_hooks` and `verifiers` sections after validation. */
type TurnConfig = Pick<ConfigFile, 'stop_hooks' | 'verifiers'>;
/** The `approvals` section after validation; the timeout is `timeout_s` whichever spelling the file used. */
type ApprovalsConfig = ConfigFile['approvals'];
/** The `permissions` section after validation. */
type PermissionsConfig = ConfigFile['permissions'];
/** `sandbox:` — whether `gatehouse run` must sandbox the agent, its network, and the paths hidden inside besides Gatehouse's own. */
export type SandboxConfig = ConfigFile['sandbox'];

/** A loaded config and the file it came from (`null` when the project has none). */
export interface LoadedConfig {
  file: string | null;
  gate: GateConfig;
  turn: TurnConfig;
  approvals: ApprovalsConfig;
  permissions: PermissionsConfig;
  sandbox: SandboxConfig;
  notify: NotifyConfig;
  /** `store:` — where approvals, audit, evidence index and sessions live; null when the file does not say. */
  store: StoreSpec | null;
  /** Things that work but should change (an older key spelling), with file and line, to show once. */
  warnings: string[];
}

/** `notify:` — the channels told when a call waits for a person (see docs/notifications.md). */
export type NotifyConfig = ConfigFile['notify'];

/** File names looked for at the project root, in this order; at most one may exist. */
export const CONFIG_FILE_NAMES: readonly string[] = ['gatehouse.yaml', 'gatehouse.yml', 'gatehouse.toml'];

/** A config is a page of settings; anything past 1 MiB is the wrong file, so do not read it whole. */
const MAX_CONFIG_BYTES = 1024 * 1024;

type Format = 'yaml' | 'toml';

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
    const turn: TurnConfig = { stop_hooks: checked.data.stop_hooks, verifiers: checked.data.verifiers };
    const warnings = oldTimeoutKeys(data).map((path) => {
      const line = lineOf(path);
      return `${line === null ? fileLabel : `${fileLabel}:${line}`}: ${formatKeyPath(path)} is the older spelling of \`timeout_s\`; it still works, but write \`timeout_s\``;
    });
    return ok({
      gate: checked.data.gate,
      turn,
      approvals: checked.data.approvals,
      permissions: checked.data.permissions,
      sandbox: checked.data.sandbox,
      notify: checked.data.notify,
      store: checked.data.store ?? null,
      warnings,
    });
  }
  const lines = describeIssues(checked.error.issues)
    .map((p) => ({ ...p, line: lineOf(p.path) }))
    .sort((a, b) => (a.line ?? 0) - (b.line ?? 0))
    .map((p) => formatProblem(fileLabel, p.line, p));
  return fail(lines.join('\n'));
}

/** Where the raw document uses an older spelling of `timeout_s`. */
function oldTimeoutKeys(data: unknown): (string | number)[][] {
  const doc = isRecord(data) ? data : {};
  const paths: (string | number)[][] = [];
  if (Array.isArray(doc.stop_hooks)) {
    doc.stop_hooks.forEach((h, i) => {
      if (isRecord(h) && OLD_TIMEOUT_KEYS.stop_hook in h) paths.push(['stop_hooks', i, OLD_TIMEOUT_KEYS.stop_hook]);
    });
  }
  const goal = isRecord(doc.verifiers) ? doc.verifiers.goal : undefined;
  if (isRecord(goal) && OLD_TIMEOUT_KEYS.goal in goal) paths.push(['verifiers', 'goal', OLD_TIMEOUT_KEYS.goal]);
  if (isRecord(doc.approvals) && OLD_TIMEOUT_KEYS.approvals in doc.approvals) paths.push(['approvals', OLD_TIMEOUT_KEYS.approvals]);
  return paths;
}

function formatProblem(fileLabel: string, line: number | null, problem: ConfigProblem): string {
  const where = line === null ? fileLabel : `${fileLabel}:${line}`;
  return `${where}: ${formatKeyPath(problem.path)}: ${problem.message}`;
}

/** `['gate', 'producers', 1, 'timeout_s']` → `gate.producers[1].timeout_s`. */
function formatKeyPath(path: KeyPath): string {
  if (path.length === 0) return '(top level)';
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : /^[A-Za-z_][A-Za-z0-9_-]*$/.test(p) ? `${i === 0 ? '' : '.'}${p}` : `[${JSON.stringify(p)}]`)).join('');
}

function defaults(): Omit<LoadedConfig, 'file'> {
  const d = ConfigFile.parse({});
  return {
    gate: d.gate,
    turn: { stop_hooks: d.stop_hooks, verifiers: d.verifiers },
    approvals: d.approvals,
    permissions: d.permissions,
    sandbox: d.sandbox,
    notify: d.notify,
    store: null,
    warnings: [],
  };
}

function formatOf(file: string): Format | null {
  const ext = extname(file).toLowerCase();
  if (ext === '.yaml' || ext === '.yml') return 'yaml';
  if (ext === '.toml') return 'toml';
  return null;
}

function readConfigText(file: string): Result<string> {
  try {
    // Opened without blocking, then checked: a FIFO in its place must not hang the command.
    return ok(readRegularText(file, { max: MAX_CONFIG_BYTES }));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return fail(`Config file ${file} does not exist; check the path, or omit it to use ${CONFIG_FILE_NAMES.join(' / ')} at the project root.`);
    if (code === 'ENOTREG') return fail(`Config file ${file} is not a regular file.`);
    if (code === 'EFBIG') return fail(`Config file ${file} is over ${MAX_CONFIG_BYTES} bytes, the most a Gatehouse config holds. Is it the right file?`);
    return fail(`Cannot read config file ${file}: ${(err as Error).message}`);
  }
}
