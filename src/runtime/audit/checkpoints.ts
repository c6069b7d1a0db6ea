// checkpoints.jsonl: one signed tree head per line, appended under the log's lock and
// read back (with its problems, never thrown) by the log and by verify.
import { closeSync, constants, ftruncateSync, fstatSync, openSync, writeSync } from 'node:fs';
import { canonicalJson } from '../../core/crypto/canonical-json.js';
import { readTail } from './lines.js';
import { isRefusedFile, readRegularText } from '../small-file.js';

/** One signed checkpoint as stored. The signed `note` is authoritative; the rest indexes it. */
export interface StoredCheckpoint {
  tree_size: number;
  /** Hex RFC 6962 root at `tree_size`. */
  root: string;
  /** The C2SP signed note (checkpoint body + signature line). */
  note: string;
  /** Id of the signing key (hex SHA-256 of its SPKI DER). */
  key_id: string;
  time: string;
}

/** The checkpoints file read back: the good records, what was wrong with the others. */
export interface CheckpointFile {
  records: StoredCheckpoint[];
  problems: string[];
  /** Bytes after the last newline: a checkpoint write that was interrupted. */
  tornBytes: number;
}

const HEX64 = /^[0-9a-f]{64}$/;

function asCheckpoint(value: unknown): StoredCheckpoint | null {
  if (typeof value !== 'object' || value === null) return null;
  const c = value as Record<string, unknown>;
  const good =
    Number.isSafeInteger(c.tree_size) &&
    (c.tree_size as number) >= 0 &&
    typeof c.root === 'string' &&
    HEX64.test(c.root) &&
    typeof c.note === 'string' &&
    typeof c.key_id === 'string' &&
    typeof c.time === 'string';
  return good ? { tree_size: c.tree_size as number, root: c.root as string, note: c.note as string, key_id: c.key_id as string, time: c.time as string } : null;
}

/** Reads every checkpoint; a missing file is an empty one. */
export function readCheckpointFile(file: string): CheckpointFile {
  let text: string;
  try {
    text = readRegularText(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { records: [], problems: [], tornBytes: 0 };
    // A FIFO or device in its place: no checkpoint can be read, and verify says so.
    if (isRefusedFile(err)) return { records: [], problems: [`checkpoints.jsonl cannot be read: ${(err as Error).message}`], tornBytes: 0 };
    throw err;
  }
  const lines = text.split('\n');
  const torn = lines.pop() ?? '';
  const records: StoredCheckpoint[] = [];
  const problems: string[] = [];
  lines.forEach((line, i) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      parsed = null;
    }
    const cp = asCheckpoint(parsed);
    if (cp === null) problems.push(`checkpoints.jsonl line ${i + 1} is not a checkpoint record`);
    else records.push(cp);
  });
  return { records, problems, tornBytes: Buffer.byteLength(torn, 'utf8') };
}

/** Appends one record with a single write; cuts off a line an earlier writer left unfinished. */
export function appendCheckpoint(file: string, record: StoredCheckpoint): void {
  const fd = openSync(file, constants.O_RDWR | constants.O_APPEND | constants.O_CREAT, 0o600);
  try {
    const tail = readTail(fd, fstatSync(fd).size);
    if (tail.torn !== null) ftruncateSync(fd, tail.completeEnd);
    const bytes = Buffer.from(`${canonicalJson(record)}\n`, 'utf8');
    if (writeSync(fd, bytes) !== bytes.length) throw new Error(`short write to ${file}`);
  } finally {
    closeSync(fd);
  }
}
