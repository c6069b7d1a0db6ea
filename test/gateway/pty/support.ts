// Helpers for the PTY tests: a temp project folder, a recorder of every output and exit
// event in arrival order, and polling with generous deadlines for a loaded machine.
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExitInfo, PtyManager } from '../../../src/gateway/pty/index.js';

/** Long enough for a cold shell on a busy two-core machine; polling returns as soon as it can. */
const DEADLINE_MS = 20_000;
const POLL_MS = 20;

/** A fresh real folder with a `project/` inside it, so "outside the project" is close at hand. */
export function makeTemp(): { base: string; project: string; cleanup(): void } {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'gatehouse-pty-')));
  const project = join(base, 'project');
  mkdirSync(project);
  return { base, project, cleanup: () => rmSync(base, { recursive: true, force: true }) };
}

export type Recorded = { kind: 'output'; id: string; seq: number; data: Buffer } | { kind: 'exit'; id: string; info: ExitInfo };

/** Records every event a manager emits, in order. */
export class Recorder {
  readonly events: Recorded[] = [];

  constructor(manager: PtyManager) {
    manager.onOutput((id, seq, data) => this.events.push({ kind: 'output', id, seq, data }));
    manager.onExit((id, info) => this.events.push({ kind: 'exit', id, info }));
  }

  of(id: string): Recorded[] {
    return this.events.filter((e) => e.id === id);
  }

  text(id: string): string {
    return Buffer.concat(this.of(id).flatMap((e) => (e.kind === 'output' ? [e.data] : []))).toString('utf8');
  }

  exits(id: string): ExitInfo[] {
    return this.of(id).flatMap((e) => (e.kind === 'exit' ? [e.info] : []));
  }

  async exitOf(id: string): Promise<ExitInfo> {
    await until(() => this.exits(id).length > 0, `exit of ${id}`);
    const info = this.exits(id)[0];
    if (info === undefined) throw new Error('unreachable');
    return info;
  }

  async waitText(id: string, needle: string | RegExp): Promise<void> {
    const found = (): boolean => (typeof needle === 'string' ? this.text(id).includes(needle) : needle.test(this.text(id)));
    await until(found, `output ${String(needle)} from ${id}`);
  }
}

/** Polls `check` until it is true; fails with `what` after the deadline. */
export async function until(check: () => boolean, what: string, deadlineMs = DEADLINE_MS): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** True if the process exists and is not a zombie (a container's init may never reap orphans). */
export function isAlive(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return false;
  }
  // Field 3, after the parenthesised command name (which may itself contain spaces or parens).
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return state !== 'Z' && state !== 'X';
}
