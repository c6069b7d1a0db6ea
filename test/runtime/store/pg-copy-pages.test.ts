// The binary COPY pages the parallel team verify reads, against a real PostgreSQL server: whole
// rows cut where asked whatever the server's chunks, every byte of every field kept, and a
// connection left usable in its transaction when the reader stops early.
import type { PoolClient } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PgStore } from '../../../src/runtime/store/pg-connect.js';
import { to as copyTo } from 'pg-copy-streams';
import { copyPages, lastKey, PageBuffers, pagesOf, type RowPage } from '../../../src/runtime/store/pg-copy-pages.js';
import { startPostgresStore, stopPostgresStore, type TestPostgres } from '../../support/postgres.js';

let pg: TestPostgres;
let store: PgStore;

beforeAll(async () => {
  ({ pg, store } = await startPostgresStore());
  // Rows of every shape: multi-byte text, empty text, NULL, and one row of 1 MB (many of the server's chunks).
  await store.pool.query(`CREATE TABLE copy_rows (id bigint PRIMARY KEY, a text, b text)`);
  await store.pool.query(
    `INSERT INTO copy_rows SELECT i, CASE WHEN i % 7 = 0 THEN NULL ELSE 'row ' || i || ' é 😀 ' || repeat('x', i % 50) END, CASE WHEN i % 11 = 0 THEN '' ELSE md5(i::text) END FROM generate_series(0, 9999) AS i`,
  );
  await store.pool.query(`UPDATE copy_rows SET a = repeat('ü', 500000) WHERE id = 5000`);
}, 120_000);
afterAll(async () => {
  await stopPostgresStore(pg, store);
});

/** A page's rows, decoded here from the binary COPY format on their own: [id, a, b] with NULL as null. */
function decode(page: RowPage): [number, string | null, string | null][] {
  const b = Buffer.from(page.bytes, 0, page.length);
  const rows: [number, string | null, string | null][] = [];
  let p = 0;
  const text = (): string | null => {
    const len = b.readInt32BE(p);
    p += 4;
    if (len < 0) return null;
    p += len;
    return b.toString('utf8', p - len, p);
  };
  while (p < b.length) {
    expect(b.readInt16BE(p)).toBe(3);
    expect(b.readInt32BE(p + 2)).toBe(8);
    const id = Number(b.readBigInt64BE(p + 6));
    p += 14;
    rows.push([id, text(), text()]);
  }
  return rows;
}

async function inTransaction<T>(fn: (c: PoolClient) => Promise<T>): Promise<T> {
  const c = await store.pool.connect();
  try {
    await c.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    return await fn(c);
  } finally {
    await c.query('ROLLBACK').catch(() => {});
    c.release();
  }
}

describe('binary COPY pages', { timeout: 60_000 }, () => {
  it('cuts the rows into pages of exactly the size asked, the last one the rest, each byte of each field as SELECT reads it', async () => {
    const expected = (await store.pool.query<{ id: string; a: string | null; b: string | null }>('SELECT id, a, b FROM copy_rows ORDER BY id')).rows.map((r) => [Number(r.id), r.a, r.b]);
    for (const size of [1, 4096, 10_000, 20_000]) {
      const pages = await inTransaction(async (c) => {
        const out: RowPage[] = [];
        for await (const page of copyPages(c, 'SELECT id, a, b FROM copy_rows ORDER BY id', size)) out.push(page);
        return out;
      });
      expect(pages.map((p) => p.count)).toEqual(Array.from({ length: Math.ceil(10_000 / size) }, (_, i) => Math.min(size, 10_000 - i * size)));
      const rows = pages.flatMap(decode);
      expect(rows.length).toBe(10_000);
      expect(rows).toEqual(expected);
      // Each page owns its memory, so that moving it to a worker moves nothing else; its last row's key starts the next statement.
      expect(new Set(pages.map((p) => p.bytes)).size).toBe(pages.length);
      for (const p of pages) {
        expect(p.bytes.byteLength).toBe(Buffer.from(p.bytes).length);
        // Not a slice of Node's shared pool: the buffer holds this page, with at most the slack kept for a longer one.
        expect(p.bytes.byteLength).toBeGreaterThanOrEqual(p.length);
        expect(p.bytes.byteLength).toBeLessThanOrEqual(p.length + (p.length >> 3));
        expect(lastKey(p)).toBe(String(decode(p).at(-1)![0]));
      }
    }
  });

  it('cuts the same stream into the same pages wherever its chunks end: in the header, a row, a length, the trailer', async () => {
    // The server's own bytes for a few rows (NULLs, multi-byte text), taken whole.
    const whole = await inTransaction(async (c) => {
      const parts: Buffer[] = [];
      for await (const chunk of c.query(copyTo('COPY (SELECT id, a, b FROM copy_rows WHERE id < 23 ORDER BY id) TO STDOUT (FORMAT binary)')) as AsyncIterable<Buffer>) parts.push(chunk);
      return Buffer.concat(parts);
    });
    const pages = async (chunks: Buffer[]): Promise<{ rows: ReturnType<typeof decode>; count: number; last: number }[]> => {
      const out = [];
      for await (const p of pagesOf(chunks, 5)) out.push({ rows: decode(p), count: p.count, last: p.last });
      return out;
    };
    const expected = await pages([whole]);
    expect(expected.map((p) => p.count)).toEqual([5, 5, 5, 5, 3]);
    // Every place one cut can fall, then every byte a chunk of its own, then cuts at random places.
    for (let cut = 1; cut < whole.length; cut++) expect(await pages([whole.subarray(0, cut), whole.subarray(cut)])).toEqual(expected);
    expect(await pages(Array.from(whole, (_, i) => whole.subarray(i, i + 1)))).toEqual(expected);
    for (let trial = 0; trial < 50; trial++) {
      const cuts = [...new Set(Array.from({ length: 8 }, () => 1 + Math.floor(Math.random() * (whole.length - 1))))].sort((a, b) => a - b);
      const chunks = [0, ...cuts].map((from, i) => whole.subarray(from, [...cuts, whole.length][i]));
      expect(await pages(chunks)).toEqual(expected);
    }
    // A stream cut short, before its trailer, is refused.
    await expect(pages([whole.subarray(0, whole.length - 2)])).rejects.toThrow(/middle of a row/);
  });

  it('puts each page into a buffer given back when it fits, and says how much of it the page holds', async () => {
    const all = await inTransaction(async (c) => {
      const parts: Buffer[] = [];
      for await (const chunk of c.query(copyTo('COPY (SELECT id, a, b FROM copy_rows WHERE id < 4000 ORDER BY id) TO STDOUT (FORMAT binary)')) as AsyncIterable<Buffer>) parts.push(chunk);
      return Buffer.concat(parts);
    });
    const expected: ReturnType<typeof decode> = [];
    for await (const p of pagesOf([all], 100)) expected.push(...decode(p));
    const buffers = new PageBuffers();
    const rows: ReturnType<typeof decode> = [];
    // The buffers given back and not taken again since, as the pool should hold them.
    const free = new Set<ArrayBuffer>();
    let reused = 0;
    for await (const p of pagesOf([all], 100, buffers)) {
      if ([...free].some((b) => b.byteLength >= p.length)) {
        expect(free.has(p.bytes)).toBe(true);
        reused++;
      }
      free.delete(p.bytes);
      expect(p.bytes.byteLength).toBeGreaterThanOrEqual(p.length);
      rows.push(...decode(p));
      expect(lastKey(p)).toBe(String(rows.at(-1)![0]));
      // As a worker gives it back, with the page's bytes still in it.
      free.add(p.bytes);
      buffers.give(p.bytes);
    }
    expect(rows).toEqual(expected);
    expect(reused).toBeGreaterThan(30);
  });

  it('refuses a stream that is not in the binary format as soon as its first bytes say so', async () => {
    // COPY in the text format: its first bytes are a row, and what would be the header's
    // extension length is text. Read to the end it must still be refused as not binary.
    const text = await inTransaction(async (c) => {
      const parts: Buffer[] = [];
      for await (const chunk of c.query(copyTo('COPY (SELECT id, a, b FROM copy_rows WHERE id < 23 ORDER BY id) TO STDOUT')) as AsyncIterable<Buffer>) parts.push(chunk);
      return Buffer.concat(parts);
    });
    const pages = async (chunks: Buffer[]) => {
      for await (const p of pagesOf(chunks, 5)) void p;
    };
    await expect(pages([text])).rejects.toThrow(/binary format/);
    await expect(pages(Array.from(text, (_, i) => text.subarray(i, i + 1)))).rejects.toThrow(/binary format/);
  });

  it('names no key for a page whose first field is not an 8-byte integer', async () => {
    const keys = await inTransaction(async (c) => {
      const out: (string | null)[] = [];
      for await (const page of copyPages(c, 'SELECT id::int, a, b FROM copy_rows ORDER BY id LIMIT 10', 10)) out.push(lastKey(page));
      for await (const page of copyPages(c, 'SELECT id::text, a, b FROM copy_rows ORDER BY id LIMIT 10', 10)) out.push(lastKey(page));
      return out;
    });
    expect(keys).toEqual([null, null]);
  });

  it('yields nothing for no rows', async () => {
    const pages = await inTransaction(async (c) => {
      const out: RowPage[] = [];
      for await (const page of copyPages(c, 'SELECT id, a, b FROM copy_rows WHERE id < 0', 10)) out.push(page);
      return out;
    });
    expect(pages).toEqual([]);
  });

  it('leaves the connection free, in the same snapshot, when the reader stops after one page', async () => {
    await inTransaction(async (c) => {
      for await (const page of copyPages(c, 'SELECT id, a, b FROM copy_rows ORDER BY id', 100)) {
        expect(page.count).toBe(100);
        break;
      }
      // Another session changes the table; this transaction still sees it as it was.
      await store.pool.query(`UPDATE copy_rows SET b = 'changed' WHERE id = 1`);
      try {
        const r = await c.query<{ n: string; b: string }>(`SELECT count(*) AS n, (SELECT b FROM copy_rows WHERE id = 1) AS b FROM copy_rows`);
        expect(r.rows[0]).toEqual({ n: '10000', b: expect.not.stringMatching('changed') });
      } finally {
        await store.pool.query(`UPDATE copy_rows SET b = md5('1') WHERE id = 1`);
      }
    });
  });

  it('throws when the server fails in the middle of the rows', async () => {
    await inTransaction(async (c) => {
      const read = async (): Promise<number> => {
        let n = 0;
        for await (const page of copyPages(c, 'SELECT id, 1 / (id - 6000), b FROM copy_rows ORDER BY id', 1000)) n += page.count;
        return n;
      };
      await expect(read()).rejects.toThrow(/division by zero/);
    });
  });
});
