// Every file that could switch the hooks off, change what a gate decides, or run code later
// outside any gate: the write gate and the shell analysis refuse writes to all of them.
import { execFileSync } from 'node:child_process';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { compileGlob, matchesAny } from '../core/glob.js';
import { isInside, relativeInside } from '../core/path-inside.js';
import { gitControlSet, type GitDirs } from './git-control-paths.js';
import { resolveWriteTarget } from './resolve-path.js';
import { stateBase } from './state-base.js';

/** What the protected set is built from. */
export interface ProtectedInputs {
  worktree: string;
  projectState: string;
  /** The agent's settings at every level (project, local, user), as its adapter lists them. */
  agentSettings: string[];
  /** Config files of this project (gatehouse.yaml/.toml, the one given with --config, .gatehouse/hooks.json). */
  configFiles: string[];
  /** The hook bundle the rendered commands run. */
  hookBundle: string;
  /** Extra paths from the config's `gate.protect`, relative to the worktree. */
  extra: string[];
  /** The session's allow patterns: a git control path is writable only where one names it explicitly (`.git/hooks/**`). */
  allow: string[];
  env: NodeJS.ProcessEnv;
}

/** `$XDG_CONFIG_HOME`, or `~/.config` (a relative XDG value is invalid and ignored). */
export function configHome(env: NodeJS.ProcessEnv): string {
  const xdg = env.XDG_CONFIG_HOME;
  return xdg && isAbsolute(xdg) ? xdg : join(env.HOME || homedir(), '.config');
}

/** Git's user-level configuration: where hooksPath, fsmonitor and filters can be set for every repository. */
function userGitFiles(env: NodeJS.ProcessEnv): string[] {
  const home = env.HOME || homedir();
  const files = [join(home, '.gitconfig'), join(configHome(env), 'git')];
  if (env.GIT_CONFIG_GLOBAL && isAbsolute(env.GIT_CONFIG_GLOBAL)) files.push(env.GIT_CONFIG_GLOBAL);
  return files;
}

/**
 * Paths outside the worktree whose change during a session the scope check reports: git's
 * user-level config (hooksPath, fsmonitor, filters run code in every repository later) and
 * Gatehouse's own user config. Agent settings are left out: agents rewrite them themselves.
 */
export function watchedOutside(env: NodeJS.ProcessEnv): string[] {
  return [...userGitFiles(env), join(configHome(env), 'gatehouse')].map(realOrSelf);
}

/** The worktree's git dir, common dir and hooks folder (`core.hooksPath` when set), absolute, asked of git hardened; null outside git. */
export function gitDirs(worktree: string): GitDirs | null {
  const env = { ...process.env };
  for (const name of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_COMMON_DIR', 'GIT_INDEX_FILE']) delete env[name];
  let out: string;
  try {
    out = execFileSync('git', ['-c', 'core.fsmonitor=false', 'rev-parse', '--absolute-git-dir', '--git-common-dir', '--git-path', 'hooks'], {
      cwd: worktree,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      env,
    });
  } catch {
    return null;
  }
  const [gitDir, common, hooks] = out.split('\n');
  if (!gitDir) return null;
  const commonDir = resolve(worktree, common || gitDir);
  return { gitDir, commonDir, hooksDir: hooks ? resolve(worktree, hooks) : join(commonDir, 'hooks') };
}

/**
 * The repository's own control files: config (hooksPath, fsmonitor, filters, aliases), hooks (and the folder `core.hooksPath` names),
 * info (exclude, attributes, sparse-checkout) and the submodules' git folders. Objects, refs
 * and the index are left alone: committing is ordinary work.
 */
export function gitControlPaths(worktree: string): string[] {
  const dirs = gitDirs(worktree);
  if (dirs === null) return []; // not a git work tree (or no git): nothing to protect here
  const { files, folders } = gitControlSet(dirs, worktree);
  // Also as the shell analysis sees them, `<worktree>/.git/…`, when `.git` is a file (a linked worktree).
  const logical = ['config', 'hooks', 'info'].map((f) => join(worktree, '.git', f));
  return [...new Set([...files, ...folders, ...logical])];
}

/**
 * The session's protected paths (absolute), and those of them the way back may still write (the
 * repository's control files: the scope check compares them with the baseline, so an agent that
 * changed one may write it back). A git control path inside the worktree is not protected at all
 * when an allow pattern that starts with `.git/` covers it: the operator named it.
 */
export function protectedPaths(inp: ProtectedInputs): { protect: string[]; restorable: string[] } {
  const explicitGit = inp.allow.filter((p) => p.startsWith('.git/')).map(compileGlob);
  // A folder counts as named when the pattern covers what is inside it (`.git/hooks/**`).
  const named = (rel: string): boolean => matchesAny(rel, explicitGit) || matchesAny(`${rel}/x`, explicitGit);
  const control = gitControlPaths(inp.worktree).filter((p) => !(isInside(inp.worktree, p) && named(relativeInside(inp.worktree, p))));
  const protect = [
    ...new Set([
      inp.projectState,
      stateBase(inp.env),
      join(configHome(inp.env), 'gatehouse'),
      // The bundle the hooks run and the CLI beside it: rewriting either runs the agent's code as the gate.
      dirname(dirname(inp.hookBundle)),
      ...inp.agentSettings,
      ...inp.configFiles,
      ...userGitFiles(inp.env),
      ...control,
      ...inp.extra.map((p) => join(inp.worktree, p)),
    ]),
  ];
  // Targets are compared as real paths, so these must be real too (a symlinked home, /tmp on macOS).
  // The way back may write back what the scope check compares: control files and the watched user config.
  return { protect: [...new Set(protect.map(realOrSelf))], restorable: [...control.map(realOrSelf), ...watchedOutside(inp.env)] };
}

/** The real path of `p` (through its existing parents), or `p` when it cannot be resolved. */
function realOrSelf(p: string): string {
  const r = resolveWriteTarget(p, '/');
  return r.ok ? r.value : p;
}
