// The on-disk record of a session: policy, baseline, what was rendered, and its status.
// Every file is written atomically; the per-session log is append-only JSONL.
import { closeSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { checkPolicy, type Policy } from '../core/policy.js';
import { fail, ok, type Result } from '../core/result.js';
import { writeFileAtomic } from './fs-atomic.js';
import { openRegularFile, readRegularText } from './small-file.js';
import { appendSessionLog, SESSION_FILES } from './session-layout.js';
import { sha256Hex } from '../core/crypto/sha256.js';
import { isSafeSessionId, sessionDir } from './state-dir.js';

/** Lifecycle status of a session. */
type SessionStatus = 'active' | 'ended';

/** What `session start` records besides the policy. */
export interface SessionMeta {
  id: string;
  agent: string;
  worktree: string;
  status: SessionStatus;
  started_at: string;
  ended_at: string | null;
  config_file: string | null;
  /** The last end-of-session verdict, when one ran. */
  /** `verdict`: passed, failed, halted, or not_run (the command never started); absent before it existed. */
  end_verdict: { passed: boolean; verdict?: 'passed' | 'failed' | 'halted' | 'not_run'; summary: string; at: string; evidence_id?: string | null } | null;
  /** How the hooks reach the gate (absent in sessions from before the warm transport: `command`). */
  transport?: TransportRecord;
}

/** The transport a session was started with: the cold command, or warm through a supervisor. */
export type TransportRecord =
  | { kind: 'command' }
  /** `project`: the key the warm calls carry, when the supervisor serves all projects (`serve --all`). */
  | { kind: 'warm'; port: number; supervisor_pid: number; project?: string }
  | { kind: 'socket'; supervisor_pid: number };

/** A handle on one session folder. */
export class SessionStore {
  readonly dir: string;

  constructor(
    readonly projectState: string,
    readonly id: string,
  ) {
    this.dir = sessionDir(projectState, id);
  }

  /** Creates the session folder; fails if the id is unsafe or already used. */
  static create(projectState: string, id: string): Result<SessionStore> {
    if (!isSafeSessionId(id)) return fail(`session id ${JSON.stringify(id)} is not valid: use 1-128 letters, digits, '_' or '-'`);
    mkdirSync(join(projectState, 'sessions'), { recursive: true, mode: 0o700 });
    try {
      mkdirSync(sessionDir(projectState, id), { mode: 0o700 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return fail(`a session with id ${id} already exists; choose another --id or end it first`);
      throw err;
    }
    return ok(new SessionStore(projectState, id));
  }

  /** Opens an existing session folder. */
  static open(projectState: string, id: string): Result<SessionStore> {
    if (!isSafeSessionId(id)) return fail(`session id ${JSON.stringify(id)} is not valid: use 1-128 letters, digits, '_' or '-'`);
    const store = new SessionStore(projectState, id);
    try {
      // A regular file at meta.json is a session; opened without reading it, and never blocking on a FIFO.
      closeSync(openRegularFile(store.path('meta')));
    } catch {
      return fail(`no session ${id} in ${projectState}; run \`gatehouse session list\` to see the sessions of this project`);
    }
    return ok(store);
  }

  /** Ids of every session in a project state dir, oldest first. */
  static list(projectState: string): string[] {
    try {
      return readdirSync(join(projectState, 'sessions')).filter(isSafeSessionId).sort();
    } catch {
      return [];
    }
  }

  path(file: keyof typeof SESSION_FILES): string {
    return join(this.dir, SESSION_FILES[file]);
  }

  /**
   * Writes `value` as pretty JSON (on one line with `compact`: a file the hooks read on every
   * refusal and Stop, a third smaller), atomically; returns the SHA-256 of the bytes written.
   */
  writeJson(file: keyof typeof SESSION_FILES, value: unknown, { compact = false }: { compact?: boolean } = {}): string {
    const text = `${compact ? JSON.stringify(value) : JSON.stringify(value, null, 2)}\n`;
    writeFileAtomic(this.path(file), text, { mode: 0o600 });
    return sha256Hex(text);
  }

  readJson<T>(file: keyof typeof SESSION_FILES): Result<T> {
    let text: string;
    try {
      // Never blocking on a FIFO the agent put here: the supervisor and the team link read these.
      text = readRegularText(this.path(file));
    } catch (err) {
      return fail(`cannot read ${this.path(file)} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    try {
      return ok(JSON.parse(text) as T);
    } catch {
      return fail(`${this.path(file)} is not valid JSON`);
    }
  }

  /** The policy as the file holds it now, checked against the policy schema (its digest is checked where that matters: session-end.ts). */
  policy(): Result<Policy> {
    const read = this.readJson<unknown>('policy');
    if (!read.ok) return read;
    const checked = checkPolicy(read.value);
    return checked.ok ? checked : fail(`${this.path('policy')} is not a session policy this Gatehouse can read: ${checked.reason}`);
  }

  meta(): Result<SessionMeta> {
    return this.readJson<SessionMeta>('meta');
  }

  /** Appends one JSON line to the session log; never throws (a log must not wedge a hook). */
  log(entry: Record<string, unknown>): void {
    appendSessionLog(this.path('log'), entry);
  }
}
