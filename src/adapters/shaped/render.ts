// Renders Gatehouse's hook entries into a Claude Code settings file and removes exactly them
// again, leaving the user's own hooks, keys and formatting as they were.
import { existsSync, mkdirSync, realpathSync, rmdirSync, unlinkSync } from 'node:fs';
import { isRefusedFile, readRegularFile } from '../../runtime/small-file.js';
import { dirname, resolve } from 'node:path';
import { fail, ok } from '../../core/result.js';
import type { Result } from '../../core/result.js';
import { writeFileAtomic } from '../../runtime/fs-atomic.js';
import { insertValue, isJsonObject, parseStrictJson, removeValue } from './settings-json.js';
import type { JsonObject } from './settings-json.js';
import { sentence } from '../../core/sentence.js';
import { boolean, list, nullable, number, object, optional, text, type Infer, type Shape } from '../../core/shape.js';

const CHECK_PATH = 'Check the path and its permissions, then run again.';

/** One command hook for one Claude Code event; `matcher` is omitted for events without one (Stop). */
export interface HookEntry {
  event: string;
  matcher?: string;
  command: string;
  /** Seconds, as Claude Code reads it. */
  timeout: number;
}

const HookEntryShape: Shape<HookEntry> = object({ event: text(), matcher: optional(text()), command: text(), timeout: number({ positive: true }) });

/** What {@link renderHooks} did, kept (in render.json) so {@link removeHooks} can undo exactly that. */
export const RenderRecord = object({
  /** Absolute settings path. */
  file: text(),
  /** The file did not exist before render. */
  createdFile: boolean(),
  /** The parent folder (.claude) did not exist before render. */
  createdDir: boolean(),
  /** Exact original text (null if the file did not exist). */
  original: nullable(text()),
  /** Exact text written by render. */
  rendered: text(),
  entries: list(HookEntryShape),
});
export type RenderRecord = Infer<typeof RenderRecord>;

/**
 * Adds one matcher group per entry at the end of its event's array, creating the file and
 * its folder if needed (pretty, two-space, as Claude Code writes it). Fails, writing nothing,
 * on a file Claude Code could not read. Throws on no entries or a bad timeout: caller bugs.
 * @example renderHooks(join(worktree, '.claude/settings.local.json'), [{ event: 'Stop', command: 'gatehouse hook-gate check --session s1 --event Stop', timeout: 600 }])
 */
export function renderHooks(file: string, entries: HookEntry[]): Result<RenderRecord> {
  if (entries.length === 0) throw new Error('renderHooks: no entries to render');
  for (const e of entries) {
    if (!(Number.isFinite(e.timeout) && e.timeout > 0)) throw new Error(`renderHooks: bad timeout ${e.timeout}`);
  }
  const read = readSettings(file);
  if (!read.ok) return read;
  // Write through a symlinked settings file rather than replace the link with a copy.
  const target = read.value === null ? resolve(file) : realpathSync(file);
  const original = read.value;
  const what = 'Cannot add Gatehouse hooks to';
  let rendered: string;
  if (original === null) {
    rendered = JSON.stringify({ hooks: groupByEvent(entries) }, null, 2) + '\n';
  } else {
    const shape = checkShape(what, target, original, entries);
    if (!shape.ok) return shape;
    rendered = original;
    for (const entry of entries) rendered = appendGroup(rendered, entry);
  }
  const dir = dirname(target);
  const createdDir = original === null && !existsSync(dir);
  try {
    // Not recursive: a missing worktree is a wrong path, not something to create.
    if (createdDir) mkdirSync(dir);
    writeFileAtomic(target, rendered);
  } catch (err) {
    if (createdDir) removeDirIfEmpty(dir);
    return fail(`${sentence(`${what} ${target}: ${ioMessage(err)}`)} ${CHECK_PATH}`);
  }
  return ok({ file: target, createdFile: original === null, createdDir, original, rendered, entries });
}

/**
 * Undoes {@link renderHooks}: restores the original bytes when the file is as render left it,
 * otherwise removes only Gatehouse's hooks with minimal edits. Calling it again is a no-op.
 * @example const r = removeHooks(record); if (r.ok) console.log(r.value.removed)
 */
export function removeHooks(record: RenderRecord): Result<{ removed: number; deletedFile: boolean }> {
  const { file } = record;
  const read = readSettings(file);
  if (!read.ok) return read;
  const current = read.value;
  try {
    if (current === null) {
      if (record.createdDir) removeDirIfEmpty(dirname(file));
      return ok({ removed: 0, deletedFile: false });
    }
    if (current === record.rendered) {
      if (record.original !== null) writeFileAtomic(file, record.original);
      else deleteOurFile(record);
      return ok({ removed: record.entries.length, deletedFile: record.original === null });
    }
    const shape = checkShape('Cannot remove Gatehouse hooks from', file, current, record.entries);
    if (!shape.ok) return shape;
    const { text, removed } = removeStructurally(current, shape.value, record);
    const emptied = record.createdFile && Object.keys(JSON.parse(text) as JsonObject).length === 0;
    if (emptied) deleteOurFile(record);
    else if (text !== current) writeFileAtomic(file, text);
    return ok({ removed, deletedFile: emptied });
  } catch (err) {
    return fail(`${sentence(`Cannot remove Gatehouse hooks from ${file}: ${ioMessage(err)}`)} ${CHECK_PATH}`);
  }
}

function groupOf(e: HookEntry): JsonObject {
  const hook = { type: 'command', command: e.command, timeout: e.timeout };
  return e.matcher === undefined ? { hooks: [hook] } : { matcher: e.matcher, hooks: [hook] };
}

function groupByEvent(entries: HookEntry[]): Record<string, JsonObject[]> {
  const out: Record<string, JsonObject[]> = {};
  for (const e of entries) (out[e.event] ??= []).push(groupOf(e));
  return out;
}

function appendGroup(text: string, entry: HookEntry): string {
  const root = JSON.parse(text) as JsonObject;
  const hooks = root['hooks'];
  if (!isJsonObject(hooks)) return insertValue(text, [], { [entry.event]: [groupOf(entry)] }, 'hooks');
  if (!Object.hasOwn(hooks, entry.event)) return insertValue(text, ['hooks'], [groupOf(entry)], entry.event);
  return insertValue(text, ['hooks', entry.event], groupOf(entry));
}

/** Checks that Claude Code can read `text` and that our events sit where we expect them. */
function checkShape(what: string, file: string, text: string, entries: HookEntry[]): Result<JsonObject> {
  const parsed = parseStrictJson(text);
  if (!parsed.ok) {
    return fail(`${sentence(`${what} ${file}: the file ${parsed.reason}`)} Gatehouse edits strict JSON only (no comments, no trailing commas), as Claude Code reads it; fix the file and run again.`);
  }
  const layout = 'Claude Code expects {"hooks": {"<Event>": [<matcher group>, ...]}}; fix the file and run again.';
  const root = parsed.value;
  if (!isJsonObject(root)) return fail(`${what} ${file}: the file holds ${kind(root)}, not a JSON object. ${layout}`);
  if (!Object.hasOwn(root, 'hooks')) return ok(root);
  const hooks = root['hooks'];
  if (!isJsonObject(hooks)) return fail(`${what} ${file}: "hooks" is ${kind(hooks)}, not an object. ${layout}`);
  for (const event of new Set(entries.map((e) => e.event))) {
    const groups = hooks[event];
    if (groups !== undefined && !Array.isArray(groups)) {
      return fail(`${what} ${file}: "hooks.${event}" is ${kind(groups)}, not an array. ${layout}`);
    }
  }
  return ok(root);
}

function kind(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'an array' : `a ${typeof v}`;
}

/** The command hooks in one group's `hooks` array, last first (ours were appended last). */
function commandHooks(hooks: unknown): { index: number; command: string }[] {
  if (!Array.isArray(hooks)) return [];
  const found: { index: number; command: string }[] = [];
  hooks.forEach((h, index) => {
    if (isJsonObject(h) && h['type'] === 'command' && typeof h['command'] === 'string') found.push({ index, command: h['command'] });
  });
  return found.reverse();
}

function countCommand(groups: unknown, command: string): number {
  if (!Array.isArray(groups)) return 0;
  return groups.flatMap((g) => (isJsonObject(g) ? commandHooks(g['hooks']) : [])).filter((h) => h.command === command).length;
}

/** Spends one unit of `command`'s budget; false when none is left. */
function take(budget: Map<string, number>, command: string): boolean {
  const left = budget.get(command) ?? 0;
  if (left > 0) budget.set(command, left - 1);
  return left > 0;
}

function removeStructurally(current: string, root: JsonObject, record: RenderRecord): { text: string; removed: number } {
  const before = record.original === null ? {} : (JSON.parse(record.original) as JsonObject);
  const hooksBefore = isJsonObject(before['hooks']) ? before['hooks'] : {};
  const hooksNow = isJsonObject(root['hooks']) ? root['hooks'] : {};
  let text = current;
  let removed = 0;
  let droppedEvent = false;
  for (const event of new Set(record.entries.map((e) => e.event))) {
    const groups = hooksNow[event];
    if (!Array.isArray(groups)) continue;
    // Remove only as many as render added beyond what the original already had, so a
    // like-commanded hook the user had before stays, and a second removal removes nothing.
    const budget = new Map<string, number>();
    for (const e of record.entries) if (e.event === event) budget.set(e.command, (budget.get(e.command) ?? 0) + 1);
    for (const [command, ours] of budget) {
      const added = countCommand(groups, command) - countCommand(hooksBefore[event], command);
      budget.set(command, Math.max(0, Math.min(ours, added)));
    }
    let groupsLeft = groups.length;
    for (let g = groups.length - 1; g >= 0; g--) {
      const group: unknown = groups[g];
      if (!isJsonObject(group)) continue;
      const hits = commandHooks(group['hooks']).filter((h) => take(budget, h.command));
      if (hits.length === 0) continue;
      removed += hits.length;
      if (hits.length === (group['hooks'] as unknown[]).length) {
        text = removeValue(text, ['hooks', event, g]);
        groupsLeft--;
      } else {
        for (const h of hits) text = removeValue(text, ['hooks', event, g, 'hooks', h.index]);
      }
    }
    // groups.length > 0: an array that was already empty was not emptied by us.
    if (groupsLeft === 0 && groups.length > 0 && !Object.hasOwn(hooksBefore, event)) {
      text = removeValue(text, ['hooks', event]);
      droppedEvent = true;
    }
  }
  const hooksAfter = (JSON.parse(text) as JsonObject)['hooks'];
  if (droppedEvent && isJsonObject(hooksAfter) && Object.keys(hooksAfter).length === 0 && !Object.hasOwn(before, 'hooks')) {
    text = removeValue(text, ['hooks']);
  }
  return { text, removed };
}

/** Reads the file's exact text; null when it does not exist. */
function readSettings(file: string): Result<string | null> {
  let bytes: Buffer;
  try {
    bytes = readRegularFile(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return ok(null);
    // A FIFO or folder in its place (or a file past 512 MiB): its message names the file and what stands there.
    if (isRefusedFile(err)) return fail(`${sentence(ioMessage(err))} Remove it or put the settings file back, then run again.`);
    return fail(`${sentence(`Cannot read ${file}: ${ioMessage(err)}`)} ${CHECK_PATH}`);
  }
  const text = bytes.toString('utf8');
  // A lossy decode would make the "exact original" we restore differ from the real one.
  if (!Buffer.from(text, 'utf8').equals(bytes)) return fail(`${file} is not valid UTF-8; Claude Code cannot read it either. Fix the file and run again.`);
  return ok(text);
}

function deleteOurFile(record: RenderRecord): void {
  unlinkSync(record.file);
  if (record.createdDir) removeDirIfEmpty(dirname(record.file));
}

function removeDirIfEmpty(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // Not empty (the user or Claude Code put something there) or already gone: leave it.
  }
}

/** The message of a file-system error; anything else is a bug and is rethrown. */
function ioMessage(err: unknown): string {
  if (err instanceof Error && typeof (err as NodeJS.ErrnoException).code === 'string') return err.message;
  throw err;
}
