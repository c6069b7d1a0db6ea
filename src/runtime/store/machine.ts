// Who a row in the team store comes from: this machine's stable id (made once, kept in the
// state base), its host name and the OS user. The id keys everything a machine forwards, so
// a retry after an outage never writes the same item twice.
import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { hostname, userInfo } from 'node:os';
import { join } from 'node:path';
import { writeFileAtomic } from '../fs-atomic.js';
import { readSmallBytes } from '../small-file.js';
import { stateBase } from '../state-base.js';

/** This machine as the team store names it. */
export interface Machine {
  /** `m-` and 16 hex digits, made once per state base. */
  id: string;
  host: string;
  user: string;
}

const MACHINE_ID_RE = /^m-[0-9a-f]{16}$/;

/** This machine's identity; makes the id on first use. */
export function thisMachine(env: NodeJS.ProcessEnv = process.env): Machine {
  const base = stateBase(env);
  const file = join(base, 'machine-id');
  let id = readSmallBytes(file, 64)?.toString('utf8').trim() ?? '';
  if (!MACHINE_ID_RE.test(id)) id = makeId(base, file);
  let user: string;
  try {
    user = userInfo().username;
  } catch {
    user = String(process.getuid?.() ?? 'unknown');
  }
  return { id, host: hostname(), user };
}

/** Writes a new id unless another process just did (link fails on an existing name); returns the one on disk. */
function makeId(base: string, file: string): string {
  mkdirSync(base, { recursive: true, mode: 0o700 });
  const id = `m-${randomBytes(8).toString('hex')}`;
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileAtomic(tmp, `${id}\n`, { mode: 0o600 });
  try {
    linkSync(tmp, file);
  } catch {
    // Another process made one first, or a damaged file is there: a damaged one is replaced.
    const there = readSmallBytes(file, 64)?.toString('utf8').trim() ?? '';
    if (MACHINE_ID_RE.test(there)) return there;
    renameSync(tmp, file);
    return id;
  } finally {
    rmSync(tmp, { force: true });
  }
  return id;
}
