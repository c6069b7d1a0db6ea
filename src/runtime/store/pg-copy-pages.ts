// Rows as raw pages for the parallel team verify: one `COPY … TO STDOUT (FORMAT binary)` in the
// caller's snapshot, cut into pages of whole rows without decoding a field. Each page is a buffer
// of its own, so it moves to a worker thread instead of being copied there, and this thread never
// turns a row into strings: that is the worker's job (pageRows in pg-audit-range.ts).
import type { PoolClient } from 'pg';
import { to as copyTo } from 'pg-copy-streams';

/** A binary COPY stream's header: its signature, then flags and the header extension's length (int32 each). */
const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
const HEADER = SIGNATURE.length + 8;

/** Some whole rows of a binary COPY stream, as its bytes: per row an int16 field count, then per field an int32 length (-1: NULL) and its bytes. */
export interface RowPage {
  /** The rows, in the first `length` bytes (a buffer used again may be longer). */
  bytes: ArrayBuffer;
  length: number;
  count: number;
  /** Where in `bytes` the last row starts. */
  last: number;
}

/** The first field of the page's last row when it is an 8-byte integer (a bigint key), as decimal text; else null. */
export function lastKey(page: RowPage): string | null {
  const b = Buffer.from(page.bytes, 0, page.length);
  if (page.count === 0 || b.length < page.last + 14 || b.readInt16BE(page.last) < 1 || b.readInt32BE(page.last + 2) !== 8) return null;
  return b.readBigInt64BE(page.last + 6).toString();
}

/** Where the row starting at `at` ends, or -1 when `buf` does not hold all of it. */
function rowEnd(buf: Buffer, at: number): number {
  if (buf.length - at < 2) return -1;
  const fields = buf.readInt16BE(at);
  let p = at + 2;
  for (let f = 0; f < fields; f++) {
    if (buf.length - p < 4) return -1;
    const len = buf.readInt32BE(p);
    p += 4 + (len > 0 ? len : 0);
    if (p > buf.length) return -1;
  }
  return p;
}

/** Buffers kept at most: the pages a verify has in flight at once (two per worker, and the one being filled). */
const MAX_KEPT = 40;

/**
 * Page buffers, used again once their worker gives them back. A page is a few MB copied out of
 * the stream, and each new MB of memory is page faults (on a 2-core VM, 2.8 ms a MB: more than
 * the copy); a buffer used again has its pages already. Each is whole (never a slice of Node's
 * pool), so that it can be transferred.
 */
export class PageBuffers {
  private readonly free: ArrayBuffer[] = [];

  /** A buffer of at least `size` bytes: a kept one, or a new one with room for a larger page next time. */
  take(size: number): ArrayBuffer {
    const at = this.free.findIndex((b) => b.byteLength >= size);
    if (at >= 0) return this.free.splice(at, 1)[0]!;
    return Buffer.allocUnsafeSlow(size + (size >> 3)).buffer;
  }

  /** Keeps `buffer` for a later page (one a worker sent back). */
  give(buffer: ArrayBuffer): void {
    if (this.free.length < MAX_KEPT && buffer.byteLength > 0) this.free.push(buffer);
  }
}

/** `parts` in one buffer that owns its memory, from `buffers`. */
function ownBuffer(parts: Buffer[], size: number, buffers: PageBuffers): ArrayBuffer {
  const whole = buffers.take(size);
  const out = Buffer.from(whole, 0, size);
  let at = 0;
  for (const p of parts) at += p.copy(out, at);
  return whole;
}

/** A run of whole rows in a chunk: how many, where the last starts, where they end, and whether the stream's trailer follows them. */
interface RowRun {
  count: number;
  last: number;
  end: number;
  trailer: boolean;
}

/**
 * The whole rows of `buf` from `at`, at most `most` of them. The hot loop of the reading thread, in
 * a function of its own: the page generator around it runs once a chunk, so V8 compiles this small
 * loop once instead of the whole generator again each time a path of it runs for the first time.
 */
function wholeRows(buf: Buffer, at: number, most: number): RowRun {
  let count = 0;
  let last = at;
  while (count < most) {
    if (buf.length - at >= 2 && buf.readInt16BE(at) === -1) return { count, last, end: at, trailer: true };
    const end = rowEnd(buf, at);
    if (end < 0) break;
    last = at;
    at = end;
    count++;
  }
  return { count, last, end: at, trailer: false };
}

/** Reads `chunks` to their end, dropping them; a failure there is the next query's to report. */
async function drain(chunks: AsyncIterator<Buffer>): Promise<void> {
  try {
    while ((await chunks.next()).done !== true);
  } catch {
    // The connection broke: the caller's next query fails with its own error.
  }
}

/** Bytes of a chunk joined to a row cut at the last chunk's end to find where that row ends: rows are a few hundred bytes. */
const SPAN_PROBE = 16 * 1024;

/**
 * Where, in `buf`, the row that begins with `rest` (the unfinished end of the last chunk) ends; -1
 * when `buf` does not finish it. Only that row's bytes are joined: copying every chunk onto the
 * few bytes before it was a third of this thread's time.
 */
function spanEnd(rest: Buffer, buf: Buffer): number {
  for (const n of buf.length > SPAN_PROBE ? [SPAN_PROBE, buf.length] : [buf.length]) {
    const end = rowEnd(Buffer.concat([rest, buf.subarray(0, n)]), 0);
    if (end >= 0) return end - rest.length;
  }
  return -1;
}

/**
 * The rows `select` yields, `rows` to a page, in order. Read through to the end even when the
 * caller stops early, so that the connection is free for the next query of its transaction.
 * Throws when the stream fails or is not a binary COPY stream.
 */
export async function* copyPages(c: PoolClient, select: string, rows: number, buffers = new PageBuffers()): AsyncGenerator<RowPage> {
  const stream = c.query(copyTo(`COPY (${select}) TO STDOUT (FORMAT binary)`));
  const chunks = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  try {
    // Only `next`: a reader that stops early must not end the stream's iterator (which destroys the
    // stream), since the rest of it is drained below.
    yield* pagesOf({ [Symbol.asyncIterator]: () => ({ next: () => chunks.next() }) }, rows, buffers);
  } finally {
    // Left early (or failed): drain what the server still sends, so the next query can run.
    if (!stream.destroyed) await drain(chunks);
  }
}

/**
 * A binary COPY stream, cut into chunks anywhere, as pages of `rows` whole rows (the last may hold
 * fewer), each in a buffer of its own, from `buffers` (by default new ones: nothing given back).
 * Throws when it is not a binary COPY stream or ends in the middle of a row.
 */
export async function* pagesOf(chunks: AsyncIterable<Buffer> | Iterable<Buffer>, rows: number, buffers = new PageBuffers()): AsyncGenerator<RowPage> {
  // The stream's start until its header is whole; after that, a row cut at a chunk's end.
  let rest: Buffer = Buffer.alloc(0);
  let header = true;
  let ended = false;
  let parts: Buffer[] = [];
  let size = 0;
  let count = 0;
  // Where the last row read starts, counted from the start of the page being built.
  let last = 0;
  const take = (b: Buffer): void => {
    if (b.length === 0) return;
    parts.push(b);
    size += b.length;
  };
  const page = (): RowPage => {
    const out = { bytes: ownBuffer(parts, size, buffers), length: size, count, last };
    parts = [];
    size = 0;
    count = 0;
    return out;
  };
  for await (const chunk of chunks) {
    if (ended) continue;
    let buf = chunk;
    let at = 0;
    if (header) {
      buf = rest.length === 0 ? buf : Buffer.concat([rest, buf]);
      rest = Buffer.alloc(0);
      // The signature first: what follows it is a length only in the binary format.
      const seen = Math.min(buf.length, SIGNATURE.length);
      if (!buf.subarray(0, seen).equals(SIGNATURE.subarray(0, seen))) throw new Error('the server did not answer COPY in the binary format');
      const rowsAt = buf.length < HEADER ? -1 : HEADER + buf.readUInt32BE(SIGNATURE.length + 4);
      if (rowsAt < 0 || rowsAt > buf.length) {
        rest = buf;
        continue;
      }
      at = rowsAt;
      header = false;
    } else if (rest.length > 0) {
      // The trailer (a field count of -1) may be what was cut, too.
      const head = rest.length >= 2 ? rest : Buffer.concat([rest, buf.subarray(0, 2 - rest.length)]);
      if (head.length >= 2 && head.readInt16BE(0) === -1) {
        ended = true;
        continue;
      }
      const end = spanEnd(rest, buf);
      if (end < 0) {
        rest = Buffer.concat([rest, buf]);
        continue;
      }
      last = size;
      take(rest);
      take(buf.subarray(0, end));
      rest = Buffer.alloc(0);
      at = end;
      if (++count === rows) yield page();
    }
    let from = at;
    for (;;) {
      const run = wholeRows(buf, at, rows - count);
      if (run.count > 0) {
        last = size + (run.last - from);
        count += run.count;
        at = run.end;
      }
      if (run.trailer) {
        ended = true;
        break;
      }
      // Fewer rows than asked for, and no trailer: the chunk ends in the middle of a row.
      if (count < rows) break;
      take(buf.subarray(from, at));
      yield page();
      from = at;
    }
    take(buf.subarray(from, at));
    if (!ended) rest = buf.subarray(at);
  }
  if (!ended || header) throw new Error('the COPY stream ended in the middle of a row');
  if (count > 0) yield page();
}
