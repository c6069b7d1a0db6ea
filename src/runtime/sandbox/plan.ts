// Decides a session's sandbox from its policy: which real paths are writable, which stay
// read-only inside them and which are hidden. Makes what must exist for a bind (allowlisted
// folders, the agent's data folders, read-only stand-ins for missing agent settings files)
// and says how to take the stand-ins away again.
import { existsSync, lstatSync, mkdirSync, realpathSync, rmSync, statSync } from 'node:fs';
import { readTextOrNull } from '../small-file.js';
import { userInfo } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { folderShapedDirs, type SandboxNetwork, type SandboxSpec } from '../../core/sandbox.js';
import { fail, ok, type Result } from '../../core/result.js';
import { isInside, isInsideAny } from '../../core/path-inside.js';
import { realPathOrNull, resolveWriteTarget } from '../resolve-path.js';
import { writeFileAtomic } from '../fs-atomic.js';
import { configHome, gitDirs } from '../protected-paths.js';
import { stateBase } from '../state-base.js';
import { indexedProjectStates } from '../session-index.js';
import type { SandboxTools } from './probe.js';
import { hostServices } from './host-services.js';
import { gitControlDirs, type GitControlPlan } from './git-control.js';

/** What an agent writes outside the worktree, absolute (each adapter declares its own). */
interface AgentDataPaths {
  dirs: string[];
  files: string[];
}

/** Everything the plan is made from. */
export interface SandboxPlanInput {
  tools: SandboxTools;
  network: SandboxNetwork;
  /** The supervisor's socket folder (host path), or null for a sandbox that only runs checks. */
  socketDir: string | null;
  worktree: string;
  allow: readonly string[];
  /** The policy's protected paths: inside a writable folder they stay read-only. */
  protect: readonly string[];
  projectState: string;
  hookBundle: string;
  /** The agent's data folders and files under HOME (writable), and every settings file that could switch its hooks off. */
  agentData: AgentDataPaths;
  agentSettings: readonly string[];
  /**
   * The worktree folders that hold only the agent's settings (the folder of each file the session
   * renders its hooks into: `.claude/`, `.codex/`, `.github/hooks/`): read-only as a whole in a
   * writable worktree, so a settings file missing from one (`.claude/settings.json`) cannot be made.
   */
  agentConfigDirs?: readonly string[];
  /** The config's `sandbox.hide`: `~/…`, absolute, or relative to the worktree. */
  hide?: readonly string[];
  env: NodeJS.ProcessEnv;
  /** Where a git control file the agent made, which the sandbox cannot keep from being made, is moved after the session. */
  quarantineDir: string;
}

/** A planned sandbox and the undo for what planning created. */
export interface SandboxPlan {
  spec: SandboxSpec;
  /**
   * Removes the stand-in settings files and empty control folders made for the sandbox (only
   * those still as made), and moves a git control file the agent made into the quarantine
   * folder; returns those moved, `[from, to]`.
   */
  cleanup(): [from: string, to: string][];
}

/** Browser profile folders under HOME: a signed-in dashboard leaves its access token there as a cookie. */
const BROWSER_PROFILES = [
  '.config/chromium',
  '.config/google-chrome',
  '.config/google-chrome-beta',
  '.config/microsoft-edge',
  '.config/BraveSoftware',
  '.config/vivaldi',
  '.mozilla',
  'snap/chromium',
  'snap/firefox',
];

/** What a stand-in settings file holds: an empty JSON object, or nothing (an empty TOML file or hooks list, or a file where a plugin folder would be). */
const standIn = (file: string): string => (/\.jsonc?$/.test(file) ? '{}\n' : '');

function realDir(p: string): string {
  mkdirSync(p, { recursive: true, mode: 0o700 });
  return realpathSync.native(p);
}

/** The real path `p` has, or will have once made (links on the way followed); null when it cannot be resolved. */
function realOnceMade(p: string): string | null {
  const real = resolveWriteTarget(p, '/');
  return real.ok ? real.value : null;
}

/**
 * Plans the sandbox. Fails when an allowlisted folder leaves the worktree (a symlink out of
 * it): binding it writable would open a door the allowlist never named.
 */
export function planSandbox(inp: SandboxPlanInput): Result<SandboxPlan> {
  const made: string[] = [];
  let git: GitControlPlan | null = null;
  const cleanup = (): [string, string][] => {
    for (const f of made) {
      try {
        if (readTextOrNull(f) === standIn(f)) rmSync(f);
      } catch {
        // Already gone or replaced: leave it.
      }
    }
    return git?.undo(inp.quarantineDir) ?? [];
  };
  try {
    const writable: string[] = [];
    const repo = gitDirs(inp.worktree);
    const folders = folderShapedDirs(inp.allow);
    if (folders === null) {
      writable.push(inp.worktree);
    } else {
      for (const rel of folders) {
        const dir = realDir(join(inp.worktree, rel));
        if (!isInside(inp.worktree, dir)) return fail(`allowlisted folder ${rel} leads out of the worktree (to ${dir}); the sandbox will not make that writable`);
        writable.push(dir);
      }
      // Commits still work: the git folders are writable, their control files are not (below).
      if (repo !== null) writable.push(...new Set([realDir(repo.gitDir), realDir(repo.commonDir)]));
    }
    // The git control folders the repository lacks are made now, so that they too can be read-only.
    git = gitControlDirs(repo, inp.worktree, writable);
    const dataDirs = inp.agentData.dirs.map(realDir);
    const dataFiles = inp.agentData.files.filter((f) => existsSync(f) && statSync(f).isFile()).map((f) => realpathSync.native(f));
    writable.push(...dataDirs, ...dataFiles);

    // This session's state, the state base (every project's keys and tokens), the user's default one
    // when HOME points elsewhere, every state folder the session index knows (`--state-dir`), and
    // Gatehouse's user config.
    // Browser profiles too: they hold the dashboard's sign-in cookie, the access token by another name.
    const base = stateBase(inp.env);
    const home = inp.env.HOME || userInfo().homedir;
    const browsers = BROWSER_PROFILES.map((p) => join(home, p));
    const asked = (inp.hide ?? []).map((p) => (p.startsWith('~/') ? join(home, p.slice(2)) : resolve(inp.worktree, p)));
    const services = hostServices(inp.env, home);
    // The team store's password file (libpq's pgpass): whoever reads it can answer the team's approvals.
    const pgpass = [join(home, '.pgpass'), ...(inp.env.PGPASSFILE ? [resolve(inp.env.PGPASSFILE)] : [])];
    const hiddenRoots = [
      inp.projectState,
      base,
      join(userInfo().homedir, '.local', 'state', 'gatehouse'),
      ...indexedProjectStates(base),
      join(configHome(inp.env), 'gatehouse'),
      ...browsers,
      ...asked,
      ...pgpass,
      ...services.hiddenDirs,
    ]
      .map(realPathOrNull)
      .filter((p): p is string => p !== null);
    // The rest of the worktree stays visible, read-only (also where it lies under the private /tmp).
    const read_only = new Set<string>([...(folders === null ? [] : [inp.worktree]), ...git.readOnly, ...services.readOnly]);
    // With a folder-shaped allowlist the rest of the worktree is read-only already, and an
    // allowlisted agent folder is the user's explicit choice: its settings files alone stay read-only.
    if (folders === null) {
      for (const dir of inp.agentConfigDirs ?? []) {
        const planned = realOnceMade(dir);
        if (planned !== null && planned !== inp.worktree && isInside(inp.worktree, planned) && !isInsideAny(hiddenRoots, planned)) read_only.add(planned);
      }
    }
    for (const p of [...inp.protect, ...inp.agentSettings]) {
      const real = realPathOrNull(p);
      if (real !== null) {
        if (isInsideAny(writable, real) && !isInsideAny(hiddenRoots, real)) read_only.add(real);
        continue;
      }
      // A settings file the session's own render makes after this plan (the hooks file of a
      // project that had none) exists by the time the sandbox starts: bound read-only then
      // (`--ro-bind-try` leaves it out if it never was made).
      const planned = inp.agentSettings.includes(p) ? realOnceMade(p) : null;
      if (planned !== null && isInsideAny(writable, planned) && !isInsideAny(hiddenRoots, planned)) read_only.add(planned);
      // A settings file missing in a writable data folder could be created to switch the
      // hooks off for this and every later session: a read-only stand-in takes its place.
      const parent = realPathOrNull(dirname(p));
      if (parent !== null && inp.agentSettings.includes(p) && dataDirs.some((d) => parent === d || isInside(d, parent))) {
        const file = join(parent, p.slice(dirname(p).length + 1));
        writeFileAtomic(file, standIn(file), { mode: 0o600 });
        made.push(file);
        read_only.add(file);
      }
    }
    // Gatehouse's own install must be visible (the hook client runs from it) even under /tmp.
    read_only.add(realpathSync.native(dirname(dirname(inp.hookBundle))));
    const hidden_dirs: string[] = [];
    const hidden_files: string[] = [];
    // A hidden folder inside another is hidden already (and the outer one is read-only: no mount
    // point could be made in it); one under the host's /tmp is gone with it, unless a bind shows it again.
    const shown = [...writable, ...read_only];
    const outermost = [...new Set(hiddenRoots)].filter(
      (p, _, all) => !all.some((o) => o !== p && isInside(o, p)) && (!isInside('/tmp', p) || shown.some((s) => isInside(s, p) || isInside(p, s) || s === p)),
    );
    for (const p of outermost) (lstatSync(p).isDirectory() ? hidden_dirs : hidden_files).push(p);

    const spec: SandboxSpec = {
      engine: 'bubblewrap',
      version: inp.tools.version,
      bwrap: inp.tools.bwrap,
      network: inp.network,
      writable: [...new Set(writable)],
      read_only: [...read_only],
      hidden_dirs,
      hidden_files,
      symlinks: services.symlinks,
      socket_dir: inp.socketDir,
      // Always: without a session of its own the agent could push keystrokes into the terminal
      // (TIOCSTI), and `gatehouse run` starts bwrap in a process group of its own, which only a
      // new session lets read the terminal.
      new_session: true,
      disable_userns: inp.tools.disableUserns,
    };
    return ok({ spec, cleanup });
  } catch (err) {
    cleanup();
    return fail(`could not prepare the sandbox: ${(err as Error).message}`);
  }
}
