// The checks verify makes on each line of the log, shared by the serial scan and the
// parallel one's workers so that both report exactly the same problem for a line.
import { inspectEvent, isCanonicalEventLine, recomputeHash, type AuditEvent } from './record.js';

/** What is wrong with the form of a line (JSON, fields, canonical encoding), or null. */
function formProblem(e: Record<string, unknown> | null, text: string, bytes: Buffer | null): string | null {
  if (e === null) return 'the line is not a JSON object';
  const fields = inspectEvent(e);
  if (fields !== null) return fields;
  // Invalid UTF-8 decodes to U+FFFD, whose text could still look canonical.
  if (bytes !== null && !Buffer.from(text, 'utf8').equals(bytes)) return 'the line is not valid UTF-8: its bytes were changed after it was written';
  if (!isCanonicalEventLine(e as unknown as AuditEvent, text)) return 'the line is not in canonical form: it was rewritten by something other than the audit log';
  return null;
}

/** Checks a well-formed event's hash and its place in the chain; returns what is wrong, or null. */
function chainProblem(e: AuditEvent, text: string, prevSeq: number, prevHash: string | null): string | null {
  if (recomputeHash(text) !== e.hash) return "the event's hash does not match its content: the line was edited after it was written";
  const expected = prevSeq + 1;
  if (e.seq !== expected) {
    const found = e.seq as number;
    return prevSeq < 0
      ? `the first event has seq ${found}: the events before it were removed`
      : `seq ${found} follows seq ${prevSeq}: events were ${found > expected ? 'removed or reordered' : 'reordered or duplicated'} here`;
  }
  if (prevHash !== null && e.prev_hash !== prevHash) {
    return prevSeq < 0
      ? "the first event's prev_hash is not the genesis value: events before it were removed"
      : `prev_hash does not match the hash of seq ${prevSeq}: the chain is broken here (seq ${prevSeq} was rewritten with a fresh hash, or this link was forged)`;
  }
  return null;
}

/** The line parsed, when it is a JSON object. */
export function parseObject(text: string): Record<string, unknown> | null {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * What is wrong with a line (its form, then its hash and place in the chain after `prevSeq`,
 * whose hash is `prevHash`, or unknown when null), or null.
 */
export function lineProblem(e: Record<string, unknown> | null, text: string, bytes: Buffer | null, prevSeq: number, prevHash: string | null): string | null {
  return formProblem(e, text, bytes) ?? chainProblem(e as unknown as AuditEvent, text, prevSeq, prevHash);
}

/** Where the chain stands after a line: the last seq and hash a following line must link to. */
export interface ChainAt {
  seq: number;
  hash: string | null;
}

/**
 * Resynchronises after line `e`, so that one deletion or one swap is reported once or twice, not
 * for every later line: follow the chain forward, skip lines that step back.
 */
export function chainAfter(e: Record<string, unknown> | null, at: ChainAt): ChainAt {
  if (e === null || !Number.isSafeInteger(e.seq)) return { seq: at.seq + 1, hash: null };
  if ((e.seq as number) > at.seq) return { seq: e.seq as number, hash: typeof e.hash === 'string' ? e.hash : null };
  return at;
}
