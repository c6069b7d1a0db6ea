// Finds and validates the Stop hooks of Claude-Code-compatible hooks.json files (project and
// user level); a malformed file is skipped and reported, never fatal.
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { fail, ok, type Result } from '../../core/result.js';
import { isRecord } from '../../core/is-record.js';
import { readRegularText } from '../small-file.js';

/** Where a hooks.json came from. */
type ExtensionHookSource = 'project' | 'user';

/** One runnable Stop hook from a hooks.json. */
export interface ExtensionStopHook {
  /** Where it was declared, e.g. `project hooks.json Stop[0].hooks[1]`. */
  name: string;
  source: ExtensionHookSource;
  file: string;
  /** Shell text, run as `/bin/sh -c` in `cwd`. */
  command: string;
  timeout_s: number;
  /** The worktree the hooks were loaded for: the hook's cwd and the payload's `cwd`. */
  cwd: string;
}

/** What loading found: the hooks, files that were skipped and why, and parts that were ignored. */
export interface LoadedExtensionHooks {
  hooks: ExtensionStopHook[];
  /** Files skipped as malformed or unreadable. */
  problems: string[];
  /** Valid parts that Gatehouse does not run (other events, non-command handlers). */
  notes: string[];
}

/** The project file, relative to the worktree. */
export const PROJECT_HOOKS_FILE = join('.gatehouse', 'hooks.json');
/**
 * Claude Code's default is 600 s, but a Stop hook runs at every turn end; a shorter default
 * bounds a hung hook, and a hook that needs longer declares its own `timeout`.
 */
const DEFAULT_EXTENSION_HOOK_TIMEOUT_SECS = 60;
/** A hooks.json is a few hundred bytes; anything past this is not one, and is not read into memory. */
const MAX_HOOKS_FILE_BYTES = 1024 * 1024;

/** The hooks.json files to look at, user level first; a missing file is not a problem. */
function extensionHookFiles(worktree: string, env: NodeJS.ProcessEnv): { source: ExtensionHookSource; file: string }[] {
  // The XDG spec says a relative XDG_CONFIG_HOME is invalid and must be ignored.
  const xdg = env.XDG_CONFIG_HOME;
  const configHome = xdg && isAbsolute(xdg) ? xdg : join(env.HOME || homedir(), '.config');
  return [
    { source: 'user', file: join(configHome, 'gatehouse', 'hooks.json') },
    { source: 'project', file: join(worktree, PROJECT_HOOKS_FILE) },
  ];
}

/** A file's text, null when it does not exist, or why it cannot be read. */
function readHooksFile(file: string): Result<string | null> {
  try {
    // Opened without blocking, then checked: a FIFO in its place must not hang the Stop hook.
    return ok(readRegularText(file, { max: MAX_HOOKS_FILE_BYTES }));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return ok(null);
    if (code === 'EFBIG') return fail(`is over the ${MAX_HOOKS_FILE_BYTES}-byte limit for a hooks file`);
    if (code === 'ENOTREG') return fail('is not a regular file');
    return fail(`cannot be read (${(err as Error).message})`);
  }
}

/** Validates one parsed file; returns its hooks, or the first thing wrong with it. */
function parseStopHooks(data: unknown, where: { source: ExtensionHookSource; file: string }, worktree: string, notes: string[]): ExtensionStopHook[] | string {
  if (!isRecord(data) || !isRecord(data.hooks)) return 'must be an object with a "hooks" object, e.g. {"hooks": {"Stop": [...]}}';
  const hooks: ExtensionStopHook[] = [];
  for (const [event, groups] of Object.entries(data.hooks)) {
    if (event !== 'Stop') {
      notes.push(`${where.file}: ignored the ${event} hooks; Gatehouse runs only Stop hooks from hooks.json`);
      continue;
    }
    if (!Array.isArray(groups)) return '"hooks.Stop" must be a list of {"hooks": [...]} groups';
    for (const [g, group] of groups.entries()) {
      const at = `hooks.Stop[${g}]`;
      if (!isRecord(group) || !Array.isArray(group.hooks)) return `"${at}" must be an object with a "hooks" list`;
      if (group.matcher !== undefined && typeof group.matcher !== 'string') return `"${at}.matcher" must be a string`;
      // As in Claude Code: a Stop has no tool to match, so a matcher selects nothing.
      if (typeof group.matcher === 'string' && !['', '*'].includes(group.matcher)) notes.push(`${where.file}: "${at}.matcher" is ignored; Stop hooks always run`);
      for (const [h, handler] of group.hooks.entries()) {
        const hat = `${at}.hooks[${h}]`;
        if (!isRecord(handler) || typeof handler.type !== 'string') return `"${hat}" must be an object with a "type"`;
        if (handler.type !== 'command') {
          notes.push(`${where.file}: ignored "${hat}" of type ${JSON.stringify(handler.type)}; only "command" hooks run`);
          continue;
        }
        if (typeof handler.command !== 'string' || handler.command.trim() === '') return `"${hat}.command" must be a non-empty string`;
        const timeout = handler.timeout;
        if (timeout !== undefined && (typeof timeout !== 'number' || !Number.isFinite(timeout) || timeout <= 0)) return `"${hat}.timeout" must be a positive number of seconds`;
        hooks.push({
          name: `${where.source} hooks.json Stop[${g}].hooks[${h}]`,
          source: where.source,
          file: where.file,
          command: handler.command,
          timeout_s: timeout ?? DEFAULT_EXTENSION_HOOK_TIMEOUT_SECS,
          cwd: worktree,
        });
      }
    }
  }
  return hooks;
}

/**
 * Loads the Stop hooks of the user's and the project's hooks.json. A file that cannot be
 * read or is malformed is skipped whole (no half-read file) and listed in `problems`.
 * Call it once at session start: the project file lies in the worktree, where the agent can write.
 * @example const {hooks, problems} = loadExtensionHooks(worktree, process.env)
 */
export function loadExtensionHooks(worktree: string, env: NodeJS.ProcessEnv): LoadedExtensionHooks {
  const out: LoadedExtensionHooks = { hooks: [], problems: [], notes: [] };
  for (const where of extensionHookFiles(worktree, env)) {
    const read = readHooksFile(where.file);
    if (!read.ok) {
      out.problems.push(`${where.file} ${read.reason}; skipped it.`);
      continue;
    }
    const text = read.value;
    if (text === null) continue;
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (err) {
      out.problems.push(`${where.file} is not valid JSON (${(err as Error).message}); skipped it. Fix the file to use its hooks.`);
      continue;
    }
    const notes: string[] = [];
    const parsed = parseStopHooks(data, where, worktree, notes);
    if (typeof parsed === 'string') {
      out.problems.push(`${where.file}: ${parsed}; skipped the whole file. Fix it to use its hooks.`);
      continue;
    }
    out.hooks.push(...parsed);
    out.notes.push(...notes);
  }
  return out;
}
