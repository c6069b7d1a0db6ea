// A throwaway project folder for end-to-end runs, with helpers to write files, Claude
// Code's per-user project settings, and shell-safe hook commands.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export interface TempProject {
  /** Absolute, symlink-free path of the project folder. */
  dir: string;
  /** The absolute path of `rel` inside the project. */
  path(rel: string): string;
  /** Writes `content` to `rel` (creating folders) and returns its absolute path. */
  write(rel: string, content: string): string;
  /** Writes `.claude/settings.local.json`, where a per-session render of hooks belongs. */
  claudeSettings(settings: unknown): void;
  dispose(): void;
}

/**
 * Creates an empty project folder under the system temp dir.
 *
 * @example
 * const project = makeTempProject();
 * try { … } finally { project.dispose(); }
 */
export function makeTempProject(prefix = 'gh-e2e-'): TempProject {
  // realpath: macOS's /tmp is a symlink, and hook payloads carry resolved paths.
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  const path = (rel: string): string => join(dir, rel);
  const write = (rel: string, content: string): string => {
    const abs = path(rel);
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, content);
    return abs;
  };
  return {
    dir,
    path,
    write,
    claudeSettings: (settings) => void write('.claude/settings.local.json', `${JSON.stringify(settings, null, 2)}\n`),
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Quotes one word for a POSIX shell, the way hook commands are run. */
function shellQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** A hook command that runs `script` with the current Node binary, e.g. `nodeCommand(p, '--counter', f)`. */
export function nodeCommand(script: string, ...args: string[]): string {
  return [process.execPath, script, ...args].map(shellQuote).join(' ');
}
