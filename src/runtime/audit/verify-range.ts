// One range of the log, checked on its own (in a worker thread): every line's form, hash and
// chain link within the range, and its Merkle leaf hash. The joins between ranges are the caller's.
import { closeSync, openSync, readSync } from 'node:fs';
import { CompactRange, HASH_SIZE, leafHash } from '../../core/crypto/merkle.js';
import type { AuditEventDataMap } from './events.js';
import type { AuditEvent } from './record.js';
import { lineProblem, parseObject } from './verify-line.js';

/** What a range's Merkle work is. */
export interface RangeShape {
  /** Whether the caller needs every leaf hash; otherwise it takes the range's subtree root when the range is a whole subtree. */
  leaves: boolean;
  /** The range's lines when it is a whole subtree of 2^level leaves; else 0. */
  subtreeLeaves: number;
}

/** Bytes [start, end) of the log; `end` is just past a newline, or the file's end. */
export interface RangeTask extends RangeShape {
  file: string;
  start: number;
  end: number;
}

/** A range whose every line is a sound event, chained within the range. */
export interface RangeOk {
  ok: true;
  count: number;
  /** seq and prev_hash of its first line: the join with the range before. */
  firstSeq: number;
  firstPrev: string;
  /** hash of its last line: the join with the range after. */
  lastHash: string;
  /** The lines' Merkle leaf hashes, HASH_SIZE bytes each, in order (empty when only the subtree was asked for). */
  leaves: ArrayBuffer;
  /** MTH of the range's leaves, when it was asked to be a whole subtree and is one. */
  subtree: ArrayBuffer | null;
  /** Key rotations, by index in the range: the caller learns them in log order. */
  rotations: { index: number; data: AuditEventDataMap['key_rotated'] }[];
}

/** Anything else: the caller verifies the whole log serially, to report it exactly as that does. */
export interface RangeBad {
  ok: false;
}

/** Checks one range of the log file; anything but a clean range is {ok: false}. */
export function verifyRange(task: RangeTask): RangeOk | RangeBad {
  const buf = Buffer.allocUnsafe(task.end - task.start);
  const fd = openSync(task.file, 'r');
  try {
    for (let got = 0; got < buf.length;) {
      const n = readSync(fd, buf, got, buf.length - got, task.start + got);
      if (n === 0) return { ok: false };
      got += n;
    }
  } finally {
    closeSync(fd);
  }
  // A torn last line, or bytes that are not UTF-8 (their lines need their exact bytes).
  if (buf.length === 0 || buf[buf.length - 1] !== 0x0a) return { ok: false };
  const text = buf.toString('utf8', 0, buf.length - 1);
  if (text.includes('\uFFFD')) return { ok: false };
  return checkLines(text.split('\n'), task);
}

/**
 * Checks a range's lines as the serial verify does, plus `extra` (true: line `i` is bad), which
 * runs only on a line that passed every other check; anything but a clean range is {ok: false}.
 */
export function checkLines(lines: readonly string[], shape: RangeShape, extra?: (e: AuditEvent, line: string, i: number) => boolean): RangeOk | RangeBad {
  const leaves = new Uint8Array(shape.leaves ? lines.length * HASH_SIZE : 0);
  const whole = shape.subtreeLeaves === lines.length ? new CompactRange() : null;
  const rotations: RangeOk['rotations'] = [];
  let firstSeq = -1;
  let firstPrev = '';
  let prevSeq = -1;
  let prevHash: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const e = parseObject(line);
    if (i === 0) {
      if (e === null || !Number.isSafeInteger(e.seq) || typeof e.prev_hash !== 'string') return { ok: false };
      firstSeq = e.seq as number;
      firstPrev = e.prev_hash;
      prevSeq = firstSeq - 1;
    }
    if (lineProblem(e, line, null, prevSeq, prevHash) !== null) return { ok: false };
    if (extra !== undefined && extra(e as unknown as AuditEvent, line, i)) return { ok: false };
    prevSeq = e!.seq as number;
    prevHash = e!.hash as string;
    if (e!.type === 'key_rotated') rotations.push({ index: i, data: e!.data as AuditEventDataMap['key_rotated'] });
    if (shape.leaves) leaves.set(leafHash(line), i * HASH_SIZE);
    else whole?.pushData(line);
  }
  const subtree = whole === null || shape.leaves ? null : new Uint8Array(whole.root()).buffer;
  if (!shape.leaves && subtree === null) return { ok: false };
  return { ok: true, count: lines.length, firstSeq, firstPrev, lastHash: prevHash!, leaves: leaves.buffer, subtree, rotations };
}
