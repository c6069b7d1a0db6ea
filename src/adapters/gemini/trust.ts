// Gemini CLI loads a project's settings — and so its hooks — only in a trusted folder, and
// refuses to run headless in an untrusted one. Trusting the worktree is the step Gemini's own
// trust dialog takes: an entry in `<GEMINI_CLI_HOME or ~>/.gemini/trustedFolders.json`.
// `session start` adds it when the folder is not trusted yet (recorded), `session end`
// removes exactly it; an explicit "do not trust" is the user's decision and is refused.
import { mkdirSync } from 'node:fs';
import { readTextOrNull } from '../../runtime/small-file.js';
import { homeOf } from '../agent-home.js';
import { dirname, join } from 'node:path';
import { fail, ok, type Result } from '../../core/result.js';
import { isInside } from '../../core/write-gate.js';
import { writeFileAtomic } from '../../runtime/fs-atomic.js';
import { undoFileEdit } from '../file-edit.js';
import type { Infer } from '../../core/shape.js';
import { folderTrustRecord } from '../trust-step.js';

/** What `session start` did to the trust file, so `session end` can undo exactly that. */
export const TrustRecord = folderTrustRecord('gemini-trust');
export type TrustRecord = Infer<typeof TrustRecord>;

type Level = 'TRUST_FOLDER' | 'TRUST_PARENT' | 'DO_NOT_TRUST';

/** Gemini CLI's user folder: `<GEMINI_CLI_HOME or ~>/.gemini`. */
export function geminiUserDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(env['GEMINI_CLI_HOME'] || homeOf(env), '.gemini');
}

/** Gemini CLI's trusted-folders file. */
export function trustedFoldersFile(env: NodeJS.ProcessEnv = process.env): string {
  return join(geminiUserDir(env), 'trustedFolders.json');
}

function readEntries(text: string | null, file: string): Result<Record<string, Level>> {
  if (text === null) return ok({});
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return ok(value as Record<string, Level>);
  } catch {
    // reported below
  }
  return fail(`cannot read ${file}: it is not a JSON object; fix or remove it, then run again`);
}

/** The most specific entry covering `folder` decides; none means not trusted yet. */
function trustOf(entries: Record<string, Level>, folder: string): Level | null {
  let best: { depth: number; level: Level } | null = null;
  for (const [path, level] of Object.entries(entries)) {
    const root = level === 'TRUST_PARENT' ? dirname(path) : path;
    if (!isInside(root, folder)) continue;
    if (best === null || root.length > best.depth) best = { depth: root.length, level };
  }
  return best?.level ?? null;
}

/** Makes sure Gemini trusts `folder`, adding the entry its trust dialog would add. */
export function ensureTrusted(folder: string, file: string = trustedFoldersFile()): Result<TrustRecord> {
  const original = readTextOrNull(file);
  const entries = readEntries(original, file);
  if (!entries.ok) return entries;
  const level = trustOf(entries.value, folder);
  if (level === 'DO_NOT_TRUST') {
    return fail(`Gemini CLI is told not to trust ${folder} (${file}), so it would ignore the session's hooks: trust the folder in Gemini (or remove that entry), then run again`);
  }
  if (level !== null) return ok({ kind: 'gemini-trust', file, folder, added: false, original, written: null });
  const written = `${JSON.stringify({ ...entries.value, [folder]: 'TRUST_FOLDER' }, null, 2)}\n`;
  try {
    // The agent's home may not exist yet (never run as this user): it would create it too.
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    // A new file is private; an existing one keeps the mode its owner gave it.
    writeFileAtomic(file, written, original === null ? { mode: 0o600 } : {});
  } catch (err) {
    return fail(`cannot trust ${folder} in ${file}: ${(err as Error).message}`);
  }
  return ok({ kind: 'gemini-trust', file, folder, added: true, original, written });
}

/** Undoes `ensureTrusted`: the file exactly as before, or, if it changed since, just our entry removed. */
export function undoTrust(record: TrustRecord): Result<void> {
  if (!record.added) return ok(undefined);
  return undoFileEdit(record, (current) => {
    const entries = readEntries(current, record.file);
    if (!entries.ok) return entries;
    if (entries.value[record.folder] !== 'TRUST_FOLDER') return ok(null);
    const rest = { ...entries.value };
    delete rest[record.folder];
    return ok(`${JSON.stringify(rest, null, 2)}\n`);
  });
}
