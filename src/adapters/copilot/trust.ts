// Copilot CLI silently skips a repository's hooks unless the folder is trusted. Trusting it
// "for this and future sessions" is what Copilot's own prompt does: the folder goes into the
// `trusted_folders` array of `<COPILOT_HOME or ~/.copilot>/config.json`. `session start` adds it
// when the folder is not covered yet (recorded); `session end` removes exactly it.
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

/** What `session start` did to the config, so `session end` can undo exactly that. */
export const CopilotTrustRecord = folderTrustRecord('copilot-trust');
export type CopilotTrustRecord = Infer<typeof CopilotTrustRecord>;

/** Copilot CLI's config file. */
export function copilotConfigFile(env: NodeJS.ProcessEnv = process.env): string {
  return join(env['COPILOT_HOME'] || join(homeOf(env), '.copilot'), 'config.json');
}

/** The file as Copilot writes it: `//` comment lines on top, then a JSON object. */
function split(text: string | null, file: string): Result<{ header: string; config: Record<string, unknown> }> {
  if (text === null) return ok({ header: '', config: {} });
  const lines = text.split('\n');
  let i = 0;
  while (i < lines.length && (lines[i]?.trim().startsWith('//') || lines[i]?.trim() === '')) i++;
  try {
    const value: unknown = JSON.parse(lines.slice(i).join('\n') || '{}');
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return ok({ header: lines.slice(0, i).join('\n'), config: value as Record<string, unknown> });
  } catch {
    // reported below
  }
  return fail(`cannot read ${file}: it is not Copilot's config format; fix or remove it, then run again`);
}

function join2(header: string, config: Record<string, unknown>): string {
  return `${header === '' ? '' : `${header}\n`}${JSON.stringify(config, null, 2)}\n`;
}

function trusted(config: Record<string, unknown>): string[] {
  const list = config['trusted_folders'];
  return Array.isArray(list) ? list.filter((x): x is string => typeof x === 'string') : [];
}

/** Makes sure Copilot trusts `folder`, adding it to `trusted_folders` when nothing covers it. */
export function ensureCopilotTrust(folder: string, file: string = copilotConfigFile()): Result<CopilotTrustRecord> {
  const original = readTextOrNull(file);
  const parsed = split(original, file);
  if (!parsed.ok) return parsed;
  const { header, config } = parsed.value;
  if (trusted(config).some((root) => isInside(root, folder))) return ok({ kind: 'copilot-trust', file, folder, added: false, original, written: null });
  const written = join2(header, { ...config, trusted_folders: [...trusted(config), folder] });
  try {
    // The agent's home may not exist yet (never run as this user): it would create it too.
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    // A new file is private; an existing one keeps the mode its owner gave it.
    writeFileAtomic(file, written, original === null ? { mode: 0o600 } : {});
  } catch (err) {
    return fail(`cannot trust ${folder} in ${file}: ${(err as Error).message}`);
  }
  return ok({ kind: 'copilot-trust', file, folder, added: true, original, written });
}

/** Undoes `ensureCopilotTrust`: the file as before, or, if it changed since, just our entry removed. */
export function undoCopilotTrust(record: CopilotTrustRecord): Result<void> {
  if (!record.added) return ok(undefined);
  return undoFileEdit(record, (current) => {
    const parsed = split(current, record.file);
    if (!parsed.ok) return parsed;
    const { header, config } = parsed.value;
    if (!trusted(config).includes(record.folder)) return ok(null);
    return ok(join2(header, { ...config, trusted_folders: trusted(config).filter((f) => f !== record.folder) }));
  });
}
