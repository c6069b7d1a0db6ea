// The OS sandbox of a session, as data, and the bubblewrap command line it becomes. Pure:
// the runtime decides the paths (real paths, what exists); this only orders the mounts.
import type { SandboxSpec } from './sandbox-spec.js';

/** How the sandbox treats the network: `host` shares this machine's, `none` has only its own loopback. */
export type SandboxNetwork = 'host' | 'none';
export const SANDBOX_NETWORKS: readonly SandboxNetwork[] = ['host', 'none'];

/** Where the supervisor's hook socket folder appears inside the sandbox (a read-only /dev, so it cannot be replaced). */
export const SANDBOX_SOCKET_DIR = '/dev/gatehouse';
/** The socket's file name in that folder. */
export const SANDBOX_SOCKET_NAME = 'hook.sock';

/** A sandboxed session's boundary (its schema is in sandbox-spec.ts, which the dashboard does not bundle). */
export type { SandboxSpec };

/** What `session_started` and evidence say of a sandbox: enough to judge it, nothing machine-private beyond paths. */
export interface SandboxRecord {
  engine: 'bubblewrap';
  version: string;
  network: SandboxNetwork;
  writable: string[];
}

/** The record of a sandbox for the audit log and evidence. */
export function sandboxRecord(spec: SandboxSpec): SandboxRecord {
  return { engine: spec.engine, version: spec.version, network: spec.network, writable: [...spec.writable] };
}

/** How a launcher starts the sandbox, beyond what the spec says. */
export interface BwrapOptions {
  /**
   * End the sandbox when the process that started bwrap dies (`--die-with-parent`): for a
   * launcher that ends it with a signal to bwrap, which bwrap does not pass on (a PTY's hangup).
   */
  dieWithParent?: boolean;
}

/** One mount, ordered by path depth so that a deeper one lands on top of the folder that holds it. */
interface Mount {
  path: string;
  rank: number;
  args: string[];
}

const depth = (p: string): number => p.split('/').filter(Boolean).length;

const parentOf = (p: string): string => p.slice(0, p.lastIndexOf('/')) || '/';
const strictlyInside = (root: string, p: string): boolean => p.startsWith(root.endsWith('/') ? root : `${root}/`);

/**
 * The folders between a writable folder and a read-only or hidden path inside it. Each is bound
 * onto itself (still writable) so that it is a mount point: a mount point cannot be renamed, so the
 * agent cannot move the folder holding a read-only settings file (or the hidden state) aside and
 * put its own in its place.
 */
function anchors(spec: SandboxSpec): string[] {
  const out = new Set<string>();
  for (const r of [...spec.read_only, ...spec.hidden_dirs, ...spec.hidden_files, ...(spec.symlinks ?? []).map(([, p]) => p)]) {
    for (let a = parentOf(r); spec.writable.some((w) => strictlyInside(w, a)); a = parentOf(a)) out.add(a);
  }
  return [...out].filter((a) => !spec.writable.includes(a));
}

/**
 * The bwrap argv (without the program to run) for `spec`, starting the program in `cwd`.
 * Everything is read-only (`/` bound read-only), `/tmp` is private, then the writable
 * folders, the read-only ones inside them and the hidden ones, deepest last.
 * @example [spec.bwrap, ...bwrapArgs(spec, '/src/app'), '--', 'claude']
 */
export function bwrapArgs(spec: SandboxSpec, cwd: string, opts: BwrapOptions = {}): string[] {
  const head = ['--unshare-user', '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try'];
  if (opts.dieWithParent === true) head.push('--die-with-parent');
  if (spec.network === 'none') head.push('--unshare-net');
  if (spec.disable_userns) head.push('--disable-userns');
  if (spec.new_session) head.push('--new-session');
  head.push('--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp');
  // A TMPDIR set outside is another folder the sandbox may not write: the private /tmp is the temp folder inside.
  head.push('--setenv', 'TMPDIR', '/tmp');
  // A hidden folder that something is shown in again (a hidden /run keeping its links) is made
  // read-only only after those mounts: bwrap makes their mount points in it.
  const shownAgain = [...spec.read_only, ...spec.writable, ...(spec.symlinks ?? []).map(([, p]) => p)];
  const deferred = spec.hidden_dirs.filter((d) => shownAgain.some((p) => strictlyInside(d, p)));
  const mounts: Mount[] = [
    // `-try`: a path gone since the plan (a stand-in settings file removed at the end) is left out, not fatal.
    ...spec.writable.map((p) => ({ path: p, rank: 0, args: ['--bind-try', p, p] })),
    ...anchors(spec).map((p) => ({ path: p, rank: 0, args: ['--bind-try', p, p] })),
    ...spec.read_only.map((p) => ({ path: p, rank: 1, args: ['--ro-bind-try', p, p] })),
    ...spec.hidden_dirs.map((p) => ({ path: p, rank: 2, args: deferred.includes(p) ? ['--tmpfs', p] : ['--tmpfs', p, '--remount-ro', p] })),
    ...spec.hidden_files.map((p) => ({ path: p, rank: 2, args: ['--ro-bind', '/dev/null', p] })),
    ...(spec.symlinks ?? []).map(([target, p]) => ({ path: p, rank: 3, args: ['--symlink', target, p] })),
  ];
  mounts.sort((a, b) => depth(a.path) - depth(b.path) || a.rank - b.rank);
  const tail: string[] = [];
  for (const d of deferred) tail.push('--remount-ro', d);
  // The socket folder sits in /dev, which is then made read-only: the agent can neither
  // replace the socket nor the folder above it. /dev/shm stays a writable tmpfs of its own.
  if (spec.socket_dir !== null) tail.push('--ro-bind', spec.socket_dir, SANDBOX_SOCKET_DIR);
  tail.push('--tmpfs', '/dev/shm', '--remount-ro', '/dev', '--chdir', cwd);
  return [...head, ...mounts.flatMap((m) => m.args), ...tail];
}

/** The full argv that runs `argv` in the sandbox, in `cwd`. */
export function sandboxedArgv(spec: SandboxSpec, cwd: string, argv: readonly string[], opts: BwrapOptions = {}): string[] {
  return [spec.bwrap, ...bwrapArgs(spec, cwd, opts), '--', ...argv];
}

/**
 * How a session's checks (required checks, stop hooks) are started: inside its sandbox, in
 * the worktree, without the hook socket (they are not the agent's hooks); unchanged when the
 * session is not sandboxed.
 */
export function sandboxWrap(policy: { sandbox?: SandboxSpec | null; worktree: string }): ((argv: string[]) => string[]) | undefined {
  const spec = policy.sandbox;
  if (!spec) return undefined;
  const checks = { ...spec, socket_dir: null };
  return (argv) => sandboxedArgv(checks, policy.worktree, argv);
}

/** A literal folder path: no glob characters, no empty or dot segments. */
const LITERAL_DIR = /^(?:[^*?[\]{}/]+\/)*[^*?[\]{}/]+$/;

/**
 * The worktree folders an allowlist names, when every pattern is folder-shaped (`src/**`,
 * `src/`, `src/**\/*`); null when one is not (`*.md`, `src/*.ts`, `**`): then the whole
 * worktree stays writable and the scope check judges.
 * @example folderShapedDirs(['src/**', 'test/']) // ['src', 'test']
 */
export function folderShapedDirs(allow: readonly string[]): string[] | null {
  if (allow.length === 0) return null;
  const dirs: string[] = [];
  for (const raw of allow) {
    let p = raw.trim();
    while (p.startsWith('./')) p = p.slice(2);
    const stem = p.endsWith('/**/*') ? p.slice(0, -5) : p.endsWith('/**') ? p.slice(0, -3) : p.endsWith('/') ? p.slice(0, -1) : null;
    if (stem === null || !LITERAL_DIR.test(stem) || stem.split('/').some((s) => s === '.' || s === '..')) return null;
    dirs.push(stem);
  }
  // A folder inside another named one adds nothing.
  const unique = [...new Set(dirs)].sort();
  return unique.filter((d) => !unique.some((o) => o !== d && d.startsWith(`${o}/`)));
}
