// One range of the log, checked on its own (in a worker thread): every line's form, hash and
// chain link within the range, and the roots of the aligned subtrees its leaves make. The joins
// between ranges are the caller's.
import { closeSync, readSync } from 'node:fs';
import { openRegularFile } from '../small-file.js';
import { lineTexts, type LineTexts } from './lines.js';
import { alignedPieces, CompactRange, HASH_SIZE } from '../../core/crypto/merkle.js';
import type { AuditEventDataMap } from './events.js';
import type { AuditEvent } from './record.js';
import { lineProblem, parseObject } from './verify-line.js';

/**
 * What a range's Merkle work is. Its subtrees are aligned on the leaf index its first line's seq
 * names: the caller joins the range only where that is the tree's size, so a wrong seq costs
 * nothing but the join.
 */
export interface RangeShape {
  /** Tree sizes the caller must reach exactly (ascending; any outside the range are skipped): no subtree returned crosses one. */
  cuts: readonly number[];
}

/** Bytes [start, end) of the log; `end` is just past a newline, or the file's end. */
export interface RangeTask {
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
  /** The levels of the aligned subtrees the range's leaves make ({@link alignedPieces}), in order. */
  levels: number[];
  /** Their roots, HASH_SIZE bytes each, in the same order. */
  pieces: ArrayBuffer;
  /** Key rotations, by index in the range: the caller learns them in log order. */
  rotations: { index: number; data: AuditEventDataMap['key_rotated'] }[];
}

/** Anything else: the caller verifies the whole log serially, to report it exactly as that does. */
export interface RangeBad {
  ok: false;
}

/** Checks one range of the log file; anything but a clean range is {ok: false}. */
export function verifyRange(task: RangeTask, shape: RangeShape): RangeOk | RangeBad {
  const buf = rangeBuffer(task.end - task.start);
  const fd = openRegularFile(task.file);
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
  const lines = lineTexts(buf, buf.length - 1);
  return lines === null ? { ok: false } : checkLines(lines, shape);
}

/** The read buffer, kept for the next range: a new one would be new memory, page by page, each time. */
let scratch = Buffer.alloc(0);
function rangeBuffer(bytes: number): Buffer {
  if (scratch.length < bytes) scratch = Buffer.allocUnsafe(bytes);
  return scratch.subarray(0, bytes);
}

/**
 * Checks a range's lines as the serial verify does, plus `extra` (true: line `i` is bad), which
 * runs only on a line that passed every other check; anything but a clean range is {ok: false}.
 */
export function checkLines(lines: LineTexts, shape: RangeShape, extra?: (e: AuditEvent, line: string, i: number) => boolean): RangeOk | RangeBad {
  if (lines.length === 0) return { ok: false };
  let levels: number[] = [];
  let pieces = new Uint8Array(0);
  let piece = 0;
  let tree = new CompactRange();
  let pieceEnd = 0;
  const rotations: RangeOk['rotations'] = [];
  let firstSeq = -1;
  let firstPrev = '';
  let prevSeq = -1;
  let prevHash: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines.at(i)!;
    const e = parseObject(line);
    if (i === 0) {
      // A seq no join could take (past any tree this range could extend) is refused before its subtrees are planned.
      if (e === null || !Number.isSafeInteger(e.seq) || (e.seq as number) < 0 || (e.seq as number) > Number.MAX_SAFE_INTEGER - lines.length || typeof e.prev_hash !== 'string') return { ok: false };
      firstSeq = e.seq as number;
      firstPrev = e.prev_hash;
      prevSeq = firstSeq - 1;
      levels = alignedPieces(firstSeq, firstSeq + lines.length, shape.cuts);
      pieces = new Uint8Array(levels.length * HASH_SIZE);
      pieceEnd = 2 ** levels[0]!;
    }
    if (lineProblem(e, line, null, prevSeq, prevHash) !== null) return { ok: false };
    if (extra !== undefined && extra(e as unknown as AuditEvent, line, i)) return { ok: false };
    prevSeq = e!.seq as number;
    prevHash = e!.hash as string;
    if (e!.type === 'key_rotated') rotations.push({ index: i, data: e!.data as AuditEventDataMap['key_rotated'] });
    tree.pushData(line);
    if (i + 1 === pieceEnd) {
      pieces.set(tree.root(), piece * HASH_SIZE);
      tree = new CompactRange();
      if (++piece < levels.length) pieceEnd += 2 ** levels[piece]!;
    }
  }
  return { ok: true, count: lines.length, firstSeq, firstPrev, lastHash: prevHash!, levels, pieces: pieces.buffer, rotations };
}
