// One agent's doctor result: its shape (the `--json` entry and the stored file), where the last
// one is kept per agent (`<state base>/doctor/<agent>.json`, for the dashboard), and reading it back.
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../fs-atomic.js';
import type { GateResult } from './evidence.js';
import { readSmallJson } from '../small-file.js';

/** The gates doctor proves by a run; the others are listed as not probed. */
type ProbedGate = 'write_gate' | 'completion_gate' | 'approvals' | 'scope_check';

/** One agent's doctor result. */
export interface AgentReport {
  agent: string;
  binary: string | null;
  /** `path` (on PATH), `cache` (the agent cache) or `project` (a library the current project installs): where it was found. */
  binary_from: 'path' | 'cache' | 'project' | null;
  version: string | null;
  /** The version Gatehouse's tests pin (scripts/install-agents.mjs), null when it pins none. */
  tested_version: string | null;
  tested: boolean | null;
  checked_at: string;
  duration_ms: number;
  gates: Partial<Record<ProbedGate, GateResult>>;
  /** Gates the adapter claims `blocking` that doctor does not drive (approvals, shell analysis, halt). */
  not_probed: string[];
  /** What kept doctor from running the agent at all (no binary, no probe); absent when it ran. */
  skipped?: string;
  /** Mistakes of the scripted stand-in and other notes. */
  problems: string[];
}

/** What the dashboard shows of a stored result. */
export interface DoctorSummary {
  agent: string;
  checked_at: string;
  version: string | null;
  tested: boolean | null;
  /** Each probed gate's state. */
  gates: Record<string, string>;
}

const AGENT_FILE_RE = /^([a-z0-9][a-z0-9_-]{0,63})\.json$/;

const doctorDir = (base: string): string => join(base, 'doctor');

/** Stores an agent's last result (atomic). */
export function storeResult(base: string, a: AgentReport): void {
  mkdirSync(doctorDir(base), { recursive: true });
  writeFileAtomic(join(doctorDir(base), `${a.agent}.json`), `${JSON.stringify(a, null, 2)}\n`);
}

/** A stored file read back, checked field by field (it is read from disk); null when it is not a result. */
function summaryOf(agent: string, value: unknown): DoctorSummary | null {
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Record<string, unknown>;
  if (v['agent'] !== agent || typeof v['checked_at'] !== 'string' || typeof v['gates'] !== 'object' || v['gates'] === null) return null;
  const gates: Record<string, string> = {};
  for (const [gate, g] of Object.entries(v['gates'] as Record<string, unknown>)) {
    const state = typeof g === 'object' && g !== null ? (g as Record<string, unknown>)['state'] : undefined;
    if (state === 'blocking' || state === 'none' || state === 'BROKEN') gates[gate] = state;
  }
  return {
    agent,
    checked_at: v['checked_at'],
    version: typeof v['version'] === 'string' ? v['version'] : null,
    tested: typeof v['tested'] === 'boolean' ? v['tested'] : null,
    gates,
  };
}

/** A stored result is a few KB of evidence; a larger file is not one doctor wrote. */
const MAX_RESULT_BYTES = 256 * 1024;

/** Every stored last result under `base`, by agent name; unreadable files are left out. */
export function readStoredResults(base: string): DoctorSummary[] {
  let names: string[];
  try {
    names = readdirSync(doctorDir(base)).sort();
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    const m = AGENT_FILE_RE.exec(name);
    if (m === null || name === 'versions.json') return [];
    // Read as a file the agent may have replaced: a FIFO, a link or a huge file is skipped, never waited on.
    const stored = readSmallJson(join(doctorDir(base), name), MAX_RESULT_BYTES);
    const s = stored === null ? null : summaryOf(m[1]!, stored);
    return s === null ? [] : [s];
  });
}
