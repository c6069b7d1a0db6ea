// Where this machine's services listen on Unix sockets, kept out of the sandbox: a socket on a
// read-only mount still takes connections, and a service reached that way (the user's systemd
// manager or D-Bus, Docker, snapd) runs what it is asked outside the sandbox.
import { lstatSync, readdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { isInside } from '../../core/path-inside.js';
import { realPathOrNull } from '../resolve-path.js';

/**
 * Folders under HOME that hold a container engine's socket (Docker Desktop, Colima, Rancher
 * Desktop, Lima): through it anything runs as root on this machine.
 */
const HOME_SOCKET_DIRS = ['.docker/desktop', '.docker/run', '.colima', '.rd', '.lima'];

/** Folders outside `/run` that hold a root-equivalent socket: LXD (snap and deb) and Incus, whose group members are root through it. */
const MACHINE_SOCKET_DIRS = ['/var/snap/lxd/common/lxd', '/var/lib/lxd', '/var/lib/incus'];

/** What a sandbox hides of the machine's services, and what it shows again inside `/run`. */
export interface HostServices {
  /** Folders shown as empty and read-only: `/run` (and a separate `/var/run`), LXD's and Incus's folders, the runtime folder, the socket folders under HOME. */
  hiddenDirs: string[];
  /** Files inside a hidden folder shown again, read-only: the resolver file `/etc/resolv.conf` points into `/run`. */
  readOnly: string[];
  /** `/run`'s own symbolic links, made again inside it (`/run/shm`, NixOS's `/run/current-system`). */
  symlinks: [target: string, path: string][];
}

function isDir(p: string): boolean {
  try {
    return lstatSync(p).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The service folders to hide for a sandbox. Hiding all of `/run` rather than a list of known
 * sockets keeps a service nobody listed out too; what tools need from it (the resolver file,
 * `/run`'s links to elsewhere) is shown again. `env` supplies XDG_RUNTIME_DIR; `home` holds the
 * container engines' socket folders that are hidden too (`.docker/run`, `.colima`, …).
 * @example hostServices(process.env, '/home/me')
 */
export function hostServices(env: NodeJS.ProcessEnv, home: string, runDir = '/run'): HostServices {
  const hidden = new Set<string>();
  const run = realPathOrNull(runDir);
  if (run !== null && isDir(run)) hidden.add(run);
  for (const p of ['/var/run', ...MACHINE_SOCKET_DIRS, env.XDG_RUNTIME_DIR, ...HOME_SOCKET_DIRS.map((d) => join(home, d))]) {
    if (p === undefined || p === '') continue;
    const real = realPathOrNull(p);
    // The plan leaves out one under the host's /tmp: the sandbox's private /tmp has none of it.
    if (real !== null && isDir(real)) hidden.add(real);
  }
  const readOnly: string[] = [];
  const symlinks: [string, string][] = [];
  if (run !== null && hidden.has(run)) {
    const resolver = realPathOrNull('/etc/resolv.conf');
    if (resolver !== null && isInside(run, resolver)) readOnly.push(resolver);
    for (const name of safeList(run)) {
      const path = join(run, name);
      try {
        if (lstatSync(path).isSymbolicLink()) symlinks.push([readlinkSync(path), path]);
      } catch {
        // Gone since the listing: nothing to show again.
      }
    }
  }
  // A folder inside another hidden one is hidden with it.
  const all = [...hidden];
  return { hiddenDirs: all.filter((d) => !all.some((o) => o !== d && isInside(o, d))), readOnly, symlinks };
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
