// The log's Merkle tree on disk, as a cache: one file of 32-byte hashes per level of
// complete subtrees (level 0 = leaves), so roots and proofs cost O(log n) small reads.
import { closeSync, constants, existsSync, mkdirSync, openSync, readdirSync, renameSync, statSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { openRegularFile } from '../small-file.js';
import { join } from 'node:path';
import { CompactRange, consistencyPath, emptyRoot, HASH_SIZE, inclusionPath, leafHash, nodeHash, splitPoint, subtreeLevel, type SubtreeHasher } from '../../core/crypto/merkle.js';
import { readLines, readRange, type Tail } from './lines.js';

// `ends.bin` holds, per leaf, the u64 offset just past its line's newline, so line(seq)
// is one read; level 0 is written last on append and is the commit point of a leaf.
const ENDS_FILE = 'ends.bin';
const END_BYTES = 8;
// Present while a rebuild swaps files in; a cache found with it is rebuilt again.
const REBUILD_MARKER = 'rebuilding';
// Rebuild output is buffered per file and written in blocks of this size.
const WRITE_BLOCK_BYTES = 64 * 1024;
const LEVEL_FILE = /^level-(\d+)\.bin$/;
const FILE_MODE = 0o600;

function levelFile(level: number): string {
  return `level-${String(level).padStart(2, '0')}.bin`;
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw err;
  }
}

/** Reads nodes, keeping each level's file open for the length of one operation (or the store's hold). */
class NodeReader {
  private readonly fds = new Map<number, number>();
  constructor(
    private readonly dir: string,
    private readonly held: Map<string, number> | null,
  ) {}

  node(level: number, index: number): Buffer {
    if (this.held !== null) return readRange(heldFd(this.held, this.dir, levelFile(level), false), index * HASH_SIZE, HASH_SIZE);
    let fd = this.fds.get(level);
    if (fd === undefined) {
      fd = openRegularFile(join(this.dir, levelFile(level)));
      this.fds.set(level, fd);
    }
    return readRange(fd, index * HASH_SIZE, HASH_SIZE);
  }

  /** MTH(D[start:end]) from stored complete subtrees; suffix ranges are memoised. */
  hasher(): SubtreeHasher {
    const memo = new Map<number, Buffer>();
    const mth = (start: number, end: number): Buffer => {
      const level = subtreeLevel(start, end);
      if (level >= 0) return this.node(level, start / 2 ** level);
      const known = memo.get(start);
      if (known !== undefined) return known;
      const k = splitPoint(end - start);
      const h = nodeHash(mth(start, start + k), mth(start + k, end));
      memo.set(start, h);
      return h;
    };
    return mth;
  }

  close(): void {
    for (const fd of this.fds.values()) closeSync(fd);
    this.fds.clear();
  }
}

/** The held descriptor of `name`, opened read-write on first use (created only when `create`). */
function heldFd(held: Map<string, number>, dir: string, name: string, create: boolean): number {
  let fd = held.get(name);
  if (fd === undefined) {
    fd = openSync(join(dir, name), constants.O_RDWR | (create ? constants.O_CREAT : 0), FILE_MODE);
    held.set(name, fd);
  }
  return fd;
}

function u64(n: number): Buffer {
  const b = Buffer.alloc(END_BYTES);
  b.writeBigUInt64BE(BigInt(n));
  return b;
}

/** Buffered sequential writer of one temp file (used by rebuild). */
class BlockWriter {
  private readonly fd: number;
  private readonly buf = Buffer.allocUnsafe(WRITE_BLOCK_BYTES);
  private used = 0;
  constructor(readonly tmp: string) {
    this.fd = openSync(tmp, 'w', FILE_MODE);
  }
  push(bytes: Uint8Array): void {
    if (this.used + bytes.length > WRITE_BLOCK_BYTES) this.flush();
    this.buf.set(bytes, this.used);
    this.used += bytes.length;
  }
  private flush(): void {
    let off = 0;
    while (off < this.used) off += writeSync(this.fd, this.buf, off, this.used - off);
    this.used = 0;
  }
  close(): void {
    this.flush();
    closeSync(this.fd);
  }
}

/** How a cache relates to the log file it mirrors. */
export type CacheState = 'current' | 'one-behind' | 'stale';

/** The on-disk Merkle tree of one log. Writers must hold the log's lock; readers need not. */
export class MerkleStore {
  /** While {@link hold} runs: the files opened so far, kept open until it returns. */
  private held: Map<string, number> | null = null;

  constructor(readonly dir: string) {}

  /**
   * Runs `fn` with each file opened once at most, not once per read or write: for the log's lock
   * holder, whose appends, checkpoint and proofs read and write the same few files.
   */
  hold<T>(fn: () => T): T {
    if (this.held !== null) return fn();
    this.held = new Map();
    try {
      return fn();
    } finally {
      this.closeHeld();
      this.held = null;
    }
  }

  private closeHeld(): void {
    for (const fd of this.held?.values() ?? []) closeSync(fd);
    this.held?.clear();
  }

  private writeAt(name: string, offset: number, data: Uint8Array): void {
    if (this.held !== null) {
      writeSync(heldFd(this.held, this.dir, name, true), data, 0, data.length, offset);
      return;
    }
    const fd = openSync(join(this.dir, name), constants.O_RDWR | constants.O_CREAT, FILE_MODE);
    try {
      writeSync(fd, data, 0, data.length, offset);
    } finally {
      closeSync(fd);
    }
  }

  /** Leaves committed to the cache. */
  size(): number {
    return Math.floor(fileSize(join(this.dir, levelFile(0))) / HASH_SIZE);
  }

  private withReader<T>(fn: (r: NodeReader) => T): T {
    const r = new NodeReader(this.dir, this.held);
    try {
      return fn(r);
    } finally {
      r.close();
    }
  }

  private checkRange(what: string, size: number): void {
    const have = this.size();
    if (!Number.isSafeInteger(size) || size < 0 || size > have) throw new Error(`${what}: tree size ${size} is not between 0 and the log size ${have}`);
  }

  /** Offset just past the newline of line `seq`. */
  lineEnd(seq: number): number {
    if (this.held !== null) return Number(readRange(heldFd(this.held, this.dir, ENDS_FILE, false), seq * END_BYTES, END_BYTES).readBigUInt64BE());
    const fd = openRegularFile(join(this.dir, ENDS_FILE));
    try {
      return Number(readRange(fd, seq * END_BYTES, END_BYTES).readBigUInt64BE());
    } finally {
      closeSync(fd);
    }
  }

  leaf(index: number): Buffer {
    return this.withReader((r) => r.node(0, index));
  }

  /** The RFC 6962 root of the first `size` leaves. */
  root(size: number): Buffer {
    this.checkRange('root', size);
    return size === 0 ? emptyRoot() : this.withReader((r) => Buffer.from(r.hasher()(0, size)));
  }

  inclusionProof(index: number, size: number): Buffer[] {
    this.checkRange('inclusionProof', size);
    return this.withReader((r) => inclusionPath(index, size, r.hasher()).map((h) => Buffer.from(h)));
  }

  consistencyProof(m: number, n: number): Buffer[] {
    this.checkRange('consistencyProof', n);
    return this.withReader((r) => consistencyPath(m, n, r.hasher()).map((h) => Buffer.from(h)));
  }

  /** Compares the cache with the log's tail, reading only the cache's last leaf. */
  state(tail: Tail): CacheState {
    if (existsSync(join(this.dir, REBUILD_MARKER))) return 'stale';
    const leafBytes = fileSize(join(this.dir, levelFile(0)));
    const n = leafBytes / HASH_SIZE;
    if (!Number.isInteger(n) || fileSize(join(this.dir, ENDS_FILE)) < n * END_BYTES) return 'stale';
    const lastEnd = n === 0 ? 0 : this.lineEnd(n - 1);
    if (lastEnd === tail.completeEnd) {
      if (n === 0) return 'current';
      return tail.lastLine !== null && this.leaf(n - 1).equals(leafHash(tail.lastLine.bytes)) ? 'current' : 'stale';
    }
    return tail.lastLine !== null && lastEnd === tail.lastLine.offset ? 'one-behind' : 'stale';
  }

  /** Adds the next leaf: the completed subtree nodes first, level 0 last as the commit. */
  append(leaf: Uint8Array, lineEnd: number): void {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const n = this.size();
    const nodes: [number, number, Buffer][] = [];
    this.withReader((r) => {
      let h: Buffer = Buffer.from(leaf);
      let index = n;
      for (let level = 0; index % 2 === 1; level++) {
        h = nodeHash(r.node(level, index - 1), h);
        index = (index - 1) / 2;
        nodes.push([level + 1, index, h]);
      }
    });
    for (const [level, index, hash] of nodes) this.writeAt(levelFile(level), index * HASH_SIZE, hash);
    this.writeAt(ENDS_FILE, n * END_BYTES, u64(lineEnd));
    this.writeAt(levelFile(0), n * HASH_SIZE, leaf);
  }

  /** Recomputes every file from the log's complete lines (fd, bytes [0, completeEnd)). */
  rebuild(logFd: number, completeEnd: number): void {
    // Held files are about to be replaced by renames: later reads must open the new ones.
    this.closeHeld();
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const marker = join(this.dir, REBUILD_MARKER);
    writeFileSync(marker, `${process.pid}\n`, { mode: FILE_MODE });
    const levels: BlockWriter[] = [];
    const ends = new BlockWriter(join(this.dir, `${ENDS_FILE}.tmp`));
    const range = new CompactRange((node) => {
      levels[node.level] ??= new BlockWriter(join(this.dir, `${levelFile(node.level)}.tmp`));
      levels[node.level]!.push(Buffer.from(node.hash, 'latin1'));
    });
    for (const line of readLines(logFd, 0, completeEnd)) {
      range.pushData(line.bytes);
      ends.push(u64(line.offset + line.bytes.length + 1));
    }
    levels[0] ??= new BlockWriter(join(this.dir, `${levelFile(0)}.tmp`));
    for (const w of levels) w.close();
    ends.close();
    for (let level = levels.length - 1; level >= 1; level--) renameSync(levels[level]!.tmp, join(this.dir, levelFile(level)));
    renameSync(ends.tmp, join(this.dir, ENDS_FILE));
    renameSync(levels[0]!.tmp, join(this.dir, levelFile(0)));
    for (const f of readdirSync(this.dir)) {
      const m = LEVEL_FILE.exec(f);
      if (m && Number(m[1]) >= levels.length) unlinkSync(join(this.dir, f));
    }
    unlinkSync(marker);
  }
}
