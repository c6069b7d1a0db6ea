// A long-lived host reads a session file (the baseline) and checks its digest once: later calls
// take the parsed copy while the file's lstat key, ctime included, is the one it had when read.
import type { BigIntStats } from 'node:fs';
import { dirname } from 'node:path';
import { readVerifiedJson, type Verified, type VerifiedReader } from './session-files.js';
import { sessionOver } from './session-layout.js';
import { RACY_MARGIN_MS, statKey } from './scope-walk.js';
import { lstatOrNull } from './small-file.js';

/** Files whose parsed copies one reader keeps (one baseline per session); the oldest used is dropped past this. */
const MAX_HELD = 32;

interface Held {
  expected: string;
  key: string;
  value: unknown;
}

/**
 * A {@link VerifiedReader} that keeps what it read: {@link readVerifiedJson}, answered from
 * memory while the file is provably the file read before (same device, inode, size, mtime and
 * ctime as when its bytes hashed to the expected digest). Every write, rename or re-link moves
 * ctime forward and no one can set it back, so a kept copy stands only for bytes that did not
 * change. A copy is kept only when the key was the same before and after the read and its ctime
 * was already `racyMarginMs` old (a write in the same clock tick could otherwise leave the key
 * as it was), and only for a regular file (a link's key says nothing of its target). The value
 * is shared between callers: they never change it.
 * @example const read = verifiedJsonReader(); read<Baseline>(join(dir, 'baseline.json'), policy.baseline_sha256, 'the scope baseline')
 */
export function verifiedJsonReader(racyMarginMs: number = RACY_MARGIN_MS, held = new Map<string, Held>()): VerifiedReader {
  return <T>(file: string, expected: string, what: string): Verified<T> => {
    const before = statOf(file);
    const kept = held.get(file);
    held.delete(file);
    if (kept !== undefined && before !== null && kept.key === keyOf(before) && kept.expected === expected) {
      held.set(file, kept);
      return { ok: true, value: kept.value as T };
    }
    const keepBeforeNs = BigInt(Date.now() - racyMarginMs) * 1_000_000n;
    const read = readVerifiedJson<T>(file, expected, what);
    const after = statOf(file);
    if (read.ok && before?.isFile() === true && after !== null && keyOf(before) === keyOf(after) && before.ctimeNs < keepBeforeNs) {
      held.set(file, { expected, key: keyOf(before), value: read.value });
      for (const old of held.keys()) {
        if (held.size <= MAX_HELD) break;
        held.delete(old);
      }
    }
    return read;
  };
}

const heldByHost = new Map<string, Held>();

/** This process's reader of session files that stay put: the warm supervisor's gate worker keeps it between calls. */
export const readVerifiedJsonHeld: VerifiedReader = verifiedJsonReader(RACY_MARGIN_MS, heldByHost);

/** Forgets what {@link readVerifiedJsonHeld} keeps of the files of sessions that are over (`over`; see dropEndedSessionCaches). */
export function dropEndedSessionFiles(over: (sessionDir: string) => boolean = sessionOver): void {
  for (const file of heldByHost.keys()) if (over(dirname(file))) heldByHost.delete(file);
}

function statOf(file: string): BigIntStats | null {
  try {
    return lstatOrNull(file);
  } catch {
    return null;
  }
}

function keyOf(st: BigIntStats): string {
  return `${statKey(st)}:${st.dev}`;
}
