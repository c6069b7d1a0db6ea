// Reading a JSONL file by lines without loading it: forward in large chunks (verify,
// rebuild) and backward from the end (the tail an append needs, torn-line detection).
import { isAscii } from 'node:buffer';
import { createHash } from 'node:crypto';
import { readSync } from 'node:fs';

// Large enough that a read costs little per line, small enough to stay out of the way.
const FORWARD_CHUNK_BYTES = 1024 * 1024;
// A tail read usually needs only the last line (a few hundred bytes).
const BACKWARD_CHUNK_BYTES = 8 * 1024;
const NEWLINE = 0x0a;

/**
 * The first `end` bytes as text, or null when they are not valid UTF-8 (a byte the decoder would
 * turn into U+FFFD, whose text could look sound: such lines need their exact bytes). Log lines are
 * almost always ASCII, which is read as latin1, a copy: V8's UTF-8 decoder takes about 3 ms a MB,
 * a fifth of what the verify spends on an event.
 */
export function decodeText(bytes: Buffer, end: number): string | null {
  const part = bytes.subarray(0, end);
  if (isAscii(part)) return part.toString('latin1');
  const text = part.toString('utf8');
  return text.includes('\uFFFD') ? null : text;
}

/** Some lines as text: how many, and each by its index. */
export interface LineTexts {
  readonly length: number;
  /** Defined for every index below `length` (an array of strings is one). */
  at(i: number): string | undefined;
}

/**
 * The lines of the first `end` bytes (`end` at a newline, or the end), or null when they are not
 * valid UTF-8 (see {@link decodeText}). ASCII lines are copied out one by one as they are asked
 * for: line-sized strings reuse the young generation's warm memory, where one string of a
 * megabyte is new memory each time.
 */
export function lineTexts(bytes: Buffer, end: number): LineTexts | null {
  const part = bytes.subarray(0, end);
  if (!isAscii(part)) {
    const text = decodeText(bytes, end);
    return text === null ? null : text.split('\n');
  }
  const ends: number[] = [];
  for (let nl = part.indexOf(NEWLINE); nl !== -1; nl = part.indexOf(NEWLINE, nl + 1)) ends.push(nl);
  ends.push(end);
  return { length: ends.length, at: (i) => part.toString('latin1', i === 0 ? 0 : ends[i - 1]! + 1, ends[i]) };
}

/** One line of a file, without its newline. */
export interface Line {
  /** Valid only until the iteration moves on; copy it to keep it. */
  bytes: Buffer;
  /** Byte offset of the line's first byte. */
  offset: number;
  /** False for a last line that has no newline: a writer stopped mid-line. */
  complete: boolean;
}

/**
 * Yields the lines of the open file `fd` from byte `start` to `end` (default: EOF).
 * @example for (const l of readLines(fd)) handle(l.bytes)
 */
export function* readLines(fd: number, start = 0, end = Number.POSITIVE_INFINITY): Generator<Line> {
  const chunk = Buffer.allocUnsafe(FORWARD_CHUNK_BYTES);
  let carry: Buffer | null = null;
  let pos = start;
  while (pos < end) {
    const n = readSync(fd, chunk, 0, Math.min(FORWARD_CHUNK_BYTES, end - pos), pos);
    if (n === 0) break;
    const data: Buffer = carry === null ? chunk.subarray(0, n) : Buffer.concat([carry, chunk.subarray(0, n)]);
    const base = pos - (carry?.length ?? 0);
    pos += n;
    let s = 0;
    for (let nl = data.indexOf(NEWLINE, s); nl !== -1; nl = data.indexOf(NEWLINE, s)) {
      yield { bytes: data.subarray(s, nl), offset: base + s, complete: true };
      s = nl + 1;
    }
    // The chunk buffer is reused, so the unfinished line must be copied out.
    carry = s < data.length ? Buffer.from(data.subarray(s)) : null;
  }
  if (carry !== null) yield { bytes: carry, offset: pos - carry.length, complete: false };
}

/** One line as text. */
export interface TextLine {
  text: string;
  /**
   * The line's exact bytes when its text may not encode back to them (its chunk held
   * U+FFFD, the mark of invalid UTF-8, or it is the torn last line); else null.
   */
  bytes: Buffer | null;
  complete: boolean;
}

/**
 * Yields the lines of `fd` as text, decoding a whole chunk at a time: verify's hot loop
 * then pays one decode and one split per megabyte instead of per line. A chunk that is
 * not valid UTF-8 falls back to line by line, so those lines keep their exact bytes.
 */
export function* readTextLines(fd: number): Generator<TextLine> {
  // An unfinished line is moved to the front and the next chunk read in behind it, instead of
  // joining the two into a new megabyte each time; the buffer grows only for a longer line.
  let buf = Buffer.allocUnsafe(FORWARD_CHUNK_BYTES);
  let kept = 0;
  let pos = 0;
  for (;;) {
    if (buf.length - kept < FORWARD_CHUNK_BYTES) {
      const bigger = Buffer.allocUnsafe(kept + FORWARD_CHUNK_BYTES);
      buf.copy(bigger, 0, 0, kept);
      buf = bigger;
    }
    const n = readSync(fd, buf, kept, FORWARD_CHUNK_BYTES, pos);
    if (n === 0) break;
    pos += n;
    const data = buf.subarray(0, kept + n);
    const end = data.lastIndexOf(NEWLINE);
    if (end !== -1) {
      // A newline is never inside a multi-byte UTF-8 sequence, so this cut is safe.
      const lines = lineTexts(data, end);
      if (lines !== null) {
        for (let i = 0; i < lines.length; i++) yield { text: lines.at(i)!, bytes: null, complete: true };
      } else {
        let s = 0;
        for (let nl = data.indexOf(NEWLINE); nl !== -1 && nl <= end; nl = data.indexOf(NEWLINE, s)) {
          const bytes = Buffer.from(data.subarray(s, nl));
          yield { text: bytes.toString('utf8'), bytes, complete: true };
          s = nl + 1;
        }
      }
    }
    kept = data.length - (end + 1);
    if (kept > 0) buf.copyWithin(0, end + 1, data.length);
  }
  if (kept > 0) {
    const carry = Buffer.from(buf.subarray(0, kept));
    yield { text: carry.toString('utf8'), bytes: carry, complete: false };
  }
}

/** Index of the last newline before byte `end`, or -1. */
function lastNewlineBefore(fd: number, end: number): number {
  const buf = Buffer.allocUnsafe(BACKWARD_CHUNK_BYTES);
  let hi = end;
  while (hi > 0) {
    const lo = Math.max(0, hi - BACKWARD_CHUNK_BYTES);
    const n = readSync(fd, buf, 0, hi - lo, lo);
    const at = buf.subarray(0, n).lastIndexOf(NEWLINE);
    if (at !== -1) return lo + at;
    hi = lo;
  }
  return -1;
}

/** Reads `length` bytes at `offset`. */
export function readRange(fd: number, offset: number, length: number): Buffer {
  const buf = Buffer.alloc(length);
  let got = 0;
  while (got < length) {
    const n = readSync(fd, buf, got, length - got, offset + got);
    if (n === 0) throw new Error(`unexpected end of file at byte ${offset + got}`);
    got += n;
  }
  return buf;
}

/** Hex SHA-256 of bytes [start, end) of `fd`, read in chunks. */
export function hashRange(fd: number, start: number, end: number): string {
  const h = createHash('sha256');
  for (let pos = start; pos < end; pos += FORWARD_CHUNK_BYTES) h.update(readRange(fd, pos, Math.min(FORWARD_CHUNK_BYTES, end - pos)));
  return h.digest('hex');
}

/** The end of a log file: its last complete line and any unterminated bytes after it. */
export interface Tail {
  /** Offset just past the last newline: where complete lines end. */
  completeEnd: number;
  lastLine: { offset: number; bytes: Buffer } | null;
  /** Bytes after the last newline, left by a writer killed mid-line. */
  torn: { offset: number; length: number } | null;
}

/** Finds the tail of a file of `size` bytes, reading only from its end. */
export function readTail(fd: number, size: number): Tail {
  if (size === 0) return { completeEnd: 0, lastLine: null, torn: null };
  let completeEnd = size;
  let torn: Tail['torn'] = null;
  if (readRange(fd, size - 1, 1)[0] !== NEWLINE) {
    completeEnd = lastNewlineBefore(fd, size) + 1;
    torn = { offset: completeEnd, length: size - completeEnd };
  }
  if (completeEnd === 0) return { completeEnd, lastLine: null, torn };
  const start = lastNewlineBefore(fd, completeEnd - 1) + 1;
  return { completeEnd, lastLine: { offset: start, bytes: readRange(fd, start, completeEnd - 1 - start) }, torn };
}

/** The last `n` complete lines ending at `completeEnd`, oldest first. */
export function readLastLines(fd: number, completeEnd: number, n: number): Buffer[] {
  const out: Buffer[] = [];
  let end = completeEnd - 1;
  while (out.length < n && end >= 0) {
    const start = lastNewlineBefore(fd, end) + 1;
    out.push(readRange(fd, start, end - start));
    end = start - 1;
  }
  return out.reverse();
}
