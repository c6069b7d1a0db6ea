// Reads a machine's local audit log forward from a position, checking each line's form, hash
// and link to the line before it, so that a tampered local line is never forwarded silently.
import { closeSync, fstatSync } from 'node:fs';
import { openRegularFile } from '../small-file.js';
import { readLastLines, readLines, readRange } from '../audit/lines.js';
import { GENESIS_HASH, type AuditEvent } from '../audit/record.js';
import { lineProblem, parseObject } from '../audit/verify-line.js';

/** Where reading stands: the byte just past the last line taken, and the chain there. */
export interface ReadPosition {
  offset: number;
  /** seq of the next line. */
  nextSeq: number;
  /** hash of the line before `offset` (GENESIS_HASH at the start). */
  prevHash: string;
}

/** What one read found. */
export interface ReadBatch {
  events: AuditEvent[];
  /** The position after `events`; pass it to {@link LocalLogReader.advance} once they are stored. */
  end: ReadPosition;
  /** The first line that failed its check, when one did (reading stops before it). */
  problem: { seq: number; reason: string } | null;
  /** The file is shorter than the position: it was truncated or replaced since. */
  shrunk: boolean;
}

/** Reader of one local log file. */
export class LocalLogReader {
  private pos: ReadPosition = { offset: 0, nextSeq: 0, prevHash: GENESIS_HASH };

  constructor(readonly file: string) {}

  get position(): ReadPosition {
    return this.pos;
  }

  advance(to: ReadPosition): void {
    this.pos = to;
  }

  /**
   * Moves just past event `seq` if the line that ends at `end` (a hint from the log's index) is a
   * sound event `seq` whose hash is `hash`; returns whether it did. A hint that does not hold
   * leaves the position where it was.
   */
  seekPast(seq: number, hash: string, end: number): boolean {
    let fd: number;
    try {
      fd = openRegularFile(this.file);
    } catch {
      return false;
    }
    try {
      if (!Number.isSafeInteger(end) || end <= 0 || end > fstatSync(fd).size) return false;
      // The line must end with its newline just before `end`.
      if (readRange(fd, end - 1, 1)[0] !== 0x0a) return false;
      const [bytes] = readLastLines(fd, end, 1);
      if (bytes === undefined) return false;
      const text = bytes.toString('utf8');
      const e = parseObject(text);
      if (lineProblem(e, text, bytes, seq - 1, null) !== null || e!.hash !== hash) return false;
    } catch {
      return false;
    } finally {
      closeSync(fd);
    }
    this.pos = { offset: end, nextSeq: seq + 1, prevHash: hash };
    return true;
  }

  /** Up to `max` complete, sound lines after the position; a torn last line is left for later. */
  read(max: number): ReadBatch {
    const events: AuditEvent[] = [];
    const end = { ...this.pos };
    let fd: number;
    try {
      fd = openRegularFile(this.file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { events, end, problem: null, shrunk: this.pos.offset > 0 };
      throw err;
    }
    try {
      const size = fstatSync(fd).size;
      if (size < this.pos.offset) return { events, end, problem: null, shrunk: true };
      for (const l of readLines(fd, this.pos.offset, size)) {
        if (!l.complete || events.length >= max) break;
        const text = l.bytes.toString('utf8');
        const e = parseObject(text);
        const reason = lineProblem(e, text, l.bytes, end.nextSeq - 1, end.prevHash);
        // A local log never holds forwarded events: an origin here was put there by hand.
        const problem = reason ?? (e?.origin !== undefined ? 'the line carries an origin, which only team log events have' : null);
        if (problem !== null) return { events, end, problem: { seq: end.nextSeq, reason: problem }, shrunk: false };
        const event = e as unknown as AuditEvent;
        events.push(event);
        end.offset = l.offset + l.bytes.length + 1;
        end.nextSeq = event.seq + 1;
        end.prevHash = event.hash;
      }
    } finally {
      closeSync(fd);
    }
    return { events, end, problem: null, shrunk: false };
  }
}
