// Who holds a TCP port that a bind found busy: read from /proc on Linux (the listening socket's
// inode, then the process whose fd points at it), else from `lsof` when it is installed.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { findOnPath } from './find-on-path.js';

/** What is known about the process listening on a port; any part may be unknown. */
export interface PortHolder {
  pid: number | null;
  /** Its command line, shortened to {@link MAX_COMMAND_CHARS}. */
  command: string | null;
  /** The owner's uid, when only the socket (not the process) could be seen. */
  uid: number | null;
}

/** A command line is shown in one message line: long enough to recognise, short enough to read. */
const MAX_COMMAND_CHARS = 160;
/** `lsof` can stall on network filesystems; a busy-port message must not. */
const LSOF_TIMEOUT_MS = 2_000;
/** /proc/net/tcp's state code for a listening socket. */
const TCP_LISTEN = '0A';

function shorten(command: string): string {
  const one = command.replace(/\s+/g, ' ').trim();
  return one.length > MAX_COMMAND_CHARS ? `${one.slice(0, MAX_COMMAND_CHARS - 1)}…` : one;
}

/** Listening sockets on `port` from /proc/net/tcp{,6}: their inodes and owners. */
function listeningSockets(port: number, procRoot: string): { inode: string; uid: number }[] {
  const out: { inode: string; uid: number }[] = [];
  for (const table of ['tcp', 'tcp6']) {
    let text: string;
    try {
      text = readFileSync(join(procRoot, 'net', table), 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      const local = f[1];
      if (local === undefined || f[3] !== TCP_LISTEN || f[9] === undefined || f[9] === '0') continue;
      if (Number.parseInt(local.slice(local.lastIndexOf(':') + 1), 16) === port) out.push({ inode: f[9], uid: Number(f[7]) });
    }
  }
  return out;
}

/** The pid whose open fds include socket `inode`; only processes this user may inspect are seen. */
function pidOfSocket(inode: string, procRoot: string): number | null {
  const target = `socket:[${inode}]`;
  let pids: string[];
  try {
    pids = readdirSync(procRoot).filter((n) => /^\d+$/.test(n));
  } catch {
    return null;
  }
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(join(procRoot, pid, 'fd'));
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        if (readlinkSync(join(procRoot, pid, 'fd', fd)) === target) return Number(pid);
      } catch {
        // The fd closed while we looked.
      }
    }
  }
  return null;
}

function procCommand(pid: number, procRoot: string): string | null {
  try {
    const raw = readFileSync(join(procRoot, String(pid), 'cmdline'), 'utf8');
    const cmd = raw
      .split('\0')
      .filter((a) => a.length > 0)
      .join(' ');
    return cmd.length > 0 ? shorten(cmd) : null;
  } catch {
    return null;
  }
}

/** `lsof -Fpc`: `p<pid>` and `c<command name>` lines for the listener. */
function fromLsof(port: number, env: NodeJS.ProcessEnv): PortHolder | null {
  const lsof = findOnPath('lsof', env);
  if (lsof === null) return null;
  const r = spawnSync(lsof, ['-nP', `-iTCP:${port}`, '-sTCP:LISTEN', '-Fpc'], { encoding: 'utf8', timeout: LSOF_TIMEOUT_MS });
  const pid = /^p(\d+)$/m.exec(r.stdout ?? '');
  if (pid === null) return null;
  const name = /^c(.+)$/m.exec(r.stdout ?? '');
  return { pid: Number(pid[1]), command: name ? shorten(name[1]!) : null, uid: null };
}

/**
 * The process listening on TCP `port`, as far as this user can see it; null when nothing can be
 * found (not Linux and no `lsof`, or the listener went away).
 * @example portHolder(7337) // { pid: 4242, command: 'python3 -m http.server 7337', uid: 1000 }
 */
export function portHolder(port: number, env: NodeJS.ProcessEnv = process.env, procRoot = '/proc'): PortHolder | null {
  for (const s of listeningSockets(port, procRoot)) {
    const pid = pidOfSocket(s.inode, procRoot);
    if (pid !== null) return { pid, command: procCommand(pid, procRoot), uid: s.uid };
  }
  const viaLsof = fromLsof(port, env);
  if (viaLsof !== null) return viaLsof;
  const socket = listeningSockets(port, procRoot)[0];
  return socket === undefined ? null : { pid: null, command: null, uid: socket.uid };
}

/**
 * How to name the holder in a message.
 * @example describePortHolder({ pid: 4242, command: 'node app.js', uid: 1000 }) // "pid 4242 (node app.js)"
 */
export function describePortHolder(h: PortHolder | null): string {
  if (h === null) return 'another process';
  if (h.pid !== null) return h.command !== null ? `pid ${h.pid} (${h.command})` : `pid ${h.pid}`;
  return h.uid !== null ? `a process of another user (uid ${h.uid})` : 'another process';
}
