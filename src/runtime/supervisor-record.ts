// Where a running supervisor can be found: `gatehouse serve` writes its pid and port into the
// project state, and `session start` uses it to choose the warm hook transport.
import { rmSync } from 'node:fs';
import { get } from 'node:http';
import { join } from 'node:path';
import { writeFileAtomic } from './fs-atomic.js';
import { readSmallJson } from './small-file.js';
import { isProcessAlive } from './process-alive.js';

/** What `serve` records about itself. */
export interface SupervisorRecord {
  pid: number;
  port: number;
  started_at: string;
  /** Set by `serve --all`, whose record sits in the state base and covers every project under it. */
  all?: true;
}

/** How long `session start` waits for the supervisor's health check. */
const PROBE_TIMEOUT_MS = 1_000;
/** More than the record ever holds: a pid, a port, a time. */
const RECORD_MAX_BYTES = 4 << 10;

/** `<folder>/gateway/supervisor.json`: the folder is a project state folder, or the state base for `serve --all`. */
function recordPath(projectState: string): string {
  return join(projectState, 'gateway', 'supervisor.json');
}

/** Records the running supervisor (the gateway folder must exist); `projectState` is the state base for `serve --all`. */
export function writeSupervisorRecord(projectState: string, rec: SupervisorRecord): void {
  writeFileAtomic(recordPath(projectState), `${JSON.stringify(rec)}\n`, { mode: 0o600 });
}

/** Removes the record if it is this process's own (a newer supervisor may have replaced it). */
export function removeSupervisorRecord(projectState: string, pid: number = process.pid): void {
  if (readSupervisorRecord(projectState)?.pid === pid) rmSync(recordPath(projectState), { force: true });
}

/** The recorded supervisor, or null when there is none or the file is unreadable. */
export function readSupervisorRecord(projectState: string): SupervisorRecord | null {
  try {
    // A small regular file only: a FIFO in its place must not hang `session start`.
    const rec = (readSmallJson(recordPath(projectState), RECORD_MAX_BYTES) ?? {}) as Partial<SupervisorRecord>;
    if (!Number.isInteger(rec.pid) || !Number.isInteger(rec.port) || typeof rec.started_at !== 'string' || (rec.all !== undefined && rec.all !== true)) return null;
    return rec as SupervisorRecord;
  } catch {
    return null;
  }
}

/** Resolves true if `GET /healthz` on loopback `port` answers 200 in time. */
function healthy(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = get({ host: '127.0.0.1', port, path: '/healthz', timeout: PROBE_TIMEOUT_MS, headers: { host: `127.0.0.1:${port}` } }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
  });
}

/** The supervisor recorded in this folder (a project state folder, or the state base) if its process lives and it answers now; null otherwise. */
export async function liveSupervisor(projectState: string): Promise<SupervisorRecord | null> {
  const rec = readSupervisorRecord(projectState);
  if (rec === null || !isProcessAlive(rec.pid)) return null;
  return (await healthy(rec.port)) ? rec : null;
}
