// Codex runs a project's hooks only when the project is trusted and each hook is trusted by
// its content hash; otherwise it skips them without a word. `session start` performs the
// trust steps Codex itself offers — the project's trust entry and the hook review's
// "trust" — through `codex app-server` (Codex computes the hashes, not us), checks that every
// session hook now reports `trusted`, and records the config file so `session end` can put it
// back exactly.
import { realpathSync } from 'node:fs';
import { readTextOrNull } from '../../runtime/small-file.js';
import { homeOf } from '../agent-home.js';
import { join } from 'node:path';
import { fail, ok, type Result } from '../../core/result.js';
import { undoFileEdit } from '../file-edit.js';
import { CodexAppServer } from './app-server.js';
import { boolean, list, nullable, object, oneOf, text, type Infer } from '../../core/shape.js';

/** What `session start` did to Codex's config, so `session end` can undo exactly that. */
export const CodexTrustRecord = object({
  kind: oneOf(['codex-trust'] as const),
  /** `$CODEX_HOME/config.toml`. */
  file: text(),
  project: text(),
  /** False when the project was trusted already. */
  project_added: boolean(),
  /** The keys of the session's hooks whose trust was written. */
  hook_keys: list(text()),
  /** The file's text before (null: it did not exist) and after the trust steps. */
  original: nullable(text()),
  written: nullable(text()),
});
export type CodexTrustRecord = Infer<typeof CodexTrustRecord>;

/** One hook as `hooks/list` reports it (the fields Gatehouse reads). */
interface ListedHook {
  key: string;
  sourcePath: string;
  handlerType: string;
  command?: string;
  enabled: boolean;
  currentHash: string;
  trustStatus: 'managed' | 'untrusted' | 'trusted' | 'modified';
}

/** Codex's home folder: `$CODEX_HOME`, else `~/.codex`. */
export function codexHome(env: NodeJS.ProcessEnv = process.env): string {
  return env['CODEX_HOME'] || join(homeOf(env), '.codex');
}

/** The config file the trust steps write. */
export function codexConfigFile(env: NodeJS.ProcessEnv = process.env): string {
  return join(codexHome(env), 'config.toml');
}

function readText(file: string): string | null {
  return readTextOrNull(file);
}

function realOrSelf(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

async function listOurs(server: CodexAppServer, project: string, hooksFile: string, commands: readonly string[]): Promise<ListedHook[]> {
  const listed = await server.call<{ data: { hooks: ListedHook[] }[] }>('hooks/list', { cwds: [project] });
  const file = realOrSelf(hooksFile);
  return listed.data.flatMap((d) => d.hooks).filter((h) => realOrSelf(h.sourcePath) === file && h.handlerType === 'command' && commands.includes(h.command ?? ''));
}

/**
 * Trusts the project and exactly the session's hooks (`commands`, rendered into `hooksFile`),
 * then checks Codex reports every one of them trusted and enabled. On any failure the config
 * file is put back and the reason says what to do.
 */
export async function trustCodexHooks(opts: {
  bin: string;
  project: string;
  hooksFile: string;
  commands: readonly string[];
  expected: number;
  env?: NodeJS.ProcessEnv;
}): Promise<Result<CodexTrustRecord>> {
  const env = opts.env ?? process.env;
  const file = codexConfigFile(env);
  const original = readText(file);
  let server: CodexAppServer | null = null;
  const record: CodexTrustRecord = { kind: 'codex-trust', file, project: opts.project, project_added: false, hook_keys: [], original, written: null };
  try {
    server = await CodexAppServer.start(opts.bin, env);
    const config = await server.call<{ config: { projects?: Record<string, { trust_level?: string }> | null } }>('config/read', { cwd: opts.project });
    const level = config.config.projects?.[opts.project]?.trust_level;
    if (level === 'untrusted') {
      return fail(`Codex is told not to trust ${opts.project} (${file}), so it would skip the session's hooks: trust the project in Codex (or remove that entry), then run again`);
    }
    if (level !== 'trusted') {
      await server.call('config/batchWrite', { edits: [{ keyPath: 'projects', value: { [opts.project]: { trust_level: 'trusted' } }, mergeStrategy: 'upsert' }] });
      record.project_added = true;
    }
    const ours = await listOurs(server, opts.project, opts.hooksFile, opts.commands);
    const untrusted = ours.filter((h) => h.trustStatus !== 'trusted' && h.trustStatus !== 'managed');
    if (untrusted.length > 0) {
      const state = Object.fromEntries(untrusted.map((h) => [h.key, { trusted_hash: h.currentHash }]));
      await server.call('config/batchWrite', { edits: [{ keyPath: 'hooks.state', value: state, mergeStrategy: 'upsert' }] });
      record.hook_keys = untrusted.map((h) => h.key);
    }
    record.written = readText(file);
    const check = await listOurs(server, opts.project, opts.hooksFile, opts.commands);
    const firing = check.filter((h) => h.enabled && (h.trustStatus === 'trusted' || h.trustStatus === 'managed'));
    if (firing.length !== opts.expected) {
      undoCodexTrust(record);
      return fail(
        `Codex would not run the session's hooks (${firing.length} of ${opts.expected} trusted and enabled after the trust steps; ${file}). Check that hooks are not disabled in that config, then run again`,
      );
    }
    return ok(record);
  } catch (err) {
    if (record.written === null) record.written = readText(file);
    undoCodexTrust(record);
    return fail(`cannot trust the session's hooks in Codex: ${(err as Error).message}`);
  } finally {
    await server?.close();
  }
}

/** TOML's basic-string form of a key, as Codex writes table headers. */
function tomlKey(key: string): string {
  return `"${key.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** Removes a `[header]` table holding only `line` (and the blank line after it), if present exactly so. */
function removeTable(text: string, header: string, line: RegExp): string {
  const lines = text.split('\n');
  const at = lines.indexOf(header);
  if (at < 0 || !line.test(lines[at + 1] ?? '')) return text;
  const next = lines[at + 2];
  const end = next === undefined || next === '' || next.startsWith('[') ? at + 2 + (next === '' ? 1 : 0) : -1;
  if (end < 0) return text;
  return [...lines.slice(0, at), ...lines.slice(end)].join('\n');
}

/**
 * Undoes `trustCodexHooks`: the config file exactly as before when it still holds what was
 * written; if Codex or the user changed it since, only the tables the trust steps added.
 */
export function undoCodexTrust(record: CodexTrustRecord): Result<void> {
  if (record.written === record.original) return ok(undefined);
  return undoFileEdit(record, (current) => {
    let text = current;
    for (const key of record.hook_keys) text = removeTable(text, `[hooks.state.${tomlKey(key)}]`, /^trusted_hash = "/);
    if (record.project_added) text = removeTable(text, `[projects.${tomlKey(record.project)}]`, /^trust_level = "trusted"$/);
    return ok(text);
  });
}
