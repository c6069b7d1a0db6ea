// RFC 6962 / RFC 9162 Merkle tree over SHA-256: leaf and node hashes, reference roots
// and proofs (over any source of subtree hashes), and the two proof verifiers.
import { digest } from './digest.js';

/** Bytes in a SHA-256 hash: every leaf, node, root and proof entry has this length. */
export const HASH_SIZE = 32;

// Domain separation (RFC 6962 §2.1): a leaf can never be mistaken for an inner node.
const LEAF_PREFIX = 0x00;
const NODE_PREFIX = 0x01;

// Hashes cross the hot paths (verify, rebuild) as 32-character latin1 ("binary") strings:
// one-shot hashing (Node ≥ 20.12) costs a third of a createHash object, its string output
// is cheaper than its Buffer output, and node hashing then writes both children into one
// scratch buffer instead of allocating. The Buffer API below wraps these.
const scratch = Buffer.allocUnsafe(1 + 2 * HASH_SIZE);

function sha256Binary(data: Uint8Array | string): string {
  return digest('sha256', data, 'binary');
}

/** {@link leafHash} as a latin1 string. */
function leafHashBinary(data: Uint8Array | string): string {
  // U+0000 is the single byte 0x00 in UTF-8.
  if (typeof data === 'string') return sha256Binary(`\u0000${data}`);
  const buf = Buffer.allocUnsafe(data.length + 1);
  buf[0] = LEAF_PREFIX;
  buf.set(data, 1);
  return sha256Binary(buf);
}

/** {@link nodeHash} of two latin1-string hashes, as a latin1 string. */
function nodeHashBinary(left: string, right: string): string {
  scratch[0] = NODE_PREFIX;
  scratch.write(left, 1, HASH_SIZE, 'latin1');
  scratch.write(right, 1 + HASH_SIZE, HASH_SIZE, 'latin1');
  return sha256Binary(scratch);
}

/** MTH({d}) = SHA-256(0x00 || d); a string is hashed as its UTF-8 bytes. */
export function leafHash(data: Uint8Array | string): Buffer {
  return Buffer.from(leafHashBinary(data), 'latin1');
}

/** SHA-256(0x01 || left || right). */
export function nodeHash(left: Uint8Array, right: Uint8Array): Buffer {
  const buf = Buffer.allocUnsafe(1 + left.length + right.length);
  buf[0] = NODE_PREFIX;
  buf.set(left, 1);
  buf.set(right, 1 + left.length);
  return Buffer.from(sha256Binary(buf), 'latin1');
}

/** The root of the empty tree: SHA-256 of the empty string. */
export function emptyRoot(): Buffer {
  return Buffer.from(sha256Binary(''), 'latin1');
}

/** The largest power of two strictly below `n` (n ≥ 2); the RFC's split point k. */
export function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** The level of [start, end) if it is a complete subtree aligned on its size, else -1. */
export function subtreeLevel(start: number, end: number): number {
  const len = end - start;
  let level = 0;
  for (let p = 1; p < len; p *= 2) level++;
  return len > 0 && 2 ** level === len && start % len === 0 ? level : -1;
}

/**
 * The complete subtrees, each aligned on its size, that leaves [first, end) split into from
 * left to right, as their levels; a subtree never crosses one of `cuts` (ascending; those outside
 * the range are skipped), so each cut inside the range is the end of one. Pushed in order with {@link CompactRange.pushSubtree},
 * they grow a tree of `first` leaves to `end`.
 * @example alignedPieces(4, 16, [10]) // [2, 1, 1, 2]: [4, 8), [8, 10), [10, 12), [12, 16)
 */
export function alignedPieces(first: number, end: number, cuts: readonly number[] = []): number[] {
  if (!Number.isSafeInteger(first) || !Number.isSafeInteger(end) || first < 0) throw new RangeError(`alignedPieces: [${first}, ${end}) is not a range of leaf indices`);
  const levels: number[] = [];
  // The first cut past `first`, by bisection: a log's cuts may be many.
  let c = 0;
  for (let hi = cuts.length; c < hi;) {
    const mid = (c + hi) >>> 1;
    if (cuts[mid]! <= first) c = mid + 1;
    else hi = mid;
  }
  for (let at = first; at < end;) {
    while (c < cuts.length && cuts[c]! <= at) c++;
    const stop = c < cuts.length && cuts[c]! < end ? cuts[c]! : end;
    let width = 1;
    let level = 0;
    while (at % (width * 2) === 0 && at + width * 2 <= stop) {
      width *= 2;
      level++;
    }
    levels.push(level);
    at += width;
  }
  return levels;
}

/**
 * MTH(D[n]) by the RFC's recursive definition; the reference for small trees and tests.
 * @example rootFromLeaves([leafHash('a'), leafHash('b')])
 */
export function rootFromLeaves(leafHashes: readonly Uint8Array[]): Buffer {
  if (leafHashes.length === 0) return emptyRoot();
  if (leafHashes.length === 1) return Buffer.from(leafHashes[0]!);
  const k = splitPoint(leafHashes.length);
  return nodeHash(rootFromLeaves(leafHashes.slice(0, k)), rootFromLeaves(leafHashes.slice(k)));
}

/**
 * MTH(D[start:end]) for a range the RFC recursion asks for. Every such range is
 * either a complete subtree aligned on its size, or a suffix `[a, n)` of the tree.
 */
export type SubtreeHasher = (start: number, end: number) => Uint8Array;

/** RFC 6962 §2.1.1 PATH(index, D[size]), leaf to root, with subtree hashes from `mth`. */
export function inclusionPath(index: number, size: number, mth: SubtreeHasher): Uint8Array[] {
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(size) || index < 0 || index >= size) {
    throw new Error(`inclusionPath: leaf ${index} is not in a tree of size ${size}`);
  }
  const path: Uint8Array[] = [];
  const walk = (m: number, start: number, end: number): void => {
    if (end - start === 1) return;
    const k = splitPoint(end - start);
    if (m < k) {
      walk(m, start, start + k);
      path.push(mth(start + k, end));
    } else {
      walk(m - k, start + k, end);
      path.push(mth(start, start + k));
    }
  };
  walk(index, 0, size);
  return path;
}

/** RFC 6962 §2.1.2 PROOF(m, D[n]), with subtree hashes from `mth`; empty when m is 0 or n. */
export function consistencyPath(m: number, n: number, mth: SubtreeHasher): Uint8Array[] {
  if (!Number.isSafeInteger(m) || !Number.isSafeInteger(n) || m < 0 || m > n) {
    throw new Error(`consistencyPath: cannot prove size ${m} against size ${n}`);
  }
  const path: Uint8Array[] = [];
  if (m === 0 || m === n) return path;
  const sub = (mm: number, start: number, end: number, whole: boolean): void => {
    if (mm === end - start) {
      if (!whole) path.push(mth(start, end));
      return;
    }
    const k = splitPoint(end - start);
    if (mm <= k) {
      sub(mm, start, start + k, whole);
      path.push(mth(start + k, end));
    } else {
      sub(mm - k, start + k, end, false);
      path.push(mth(start, start + k));
    }
  };
  sub(m, 0, n, true);
  return path;
}

function referenceHasher(leafHashes: readonly Uint8Array[]): SubtreeHasher {
  return (start, end) => rootFromLeaves(leafHashes.slice(start, end));
}

/** Reference inclusion proof for leaf `index` in the tree of all `leafHashes`. */
export function inclusionProof(leafHashes: readonly Uint8Array[], index: number): Uint8Array[] {
  return inclusionPath(index, leafHashes.length, referenceHasher(leafHashes));
}

/** Reference consistency proof from size `m` to size `n` over the first `n` leaves. */
export function consistencyProof(leafHashes: readonly Uint8Array[], m: number, n: number): Uint8Array[] {
  if (n > leafHashes.length) throw new Error(`consistencyProof: only ${leafHashes.length} leaves, asked for ${n}`);
  return consistencyPath(m, n, referenceHasher(leafHashes));
}

function isHash(h: Uint8Array): boolean {
  return h.length === HASH_SIZE;
}

function equalHash(a: Uint8Array, b: Uint8Array): boolean {
  return isHash(a) && isHash(b) && Buffer.compare(a, b) === 0;
}

// Tree sizes may exceed 2^32, so halving uses arithmetic rather than `>>`.
const half = (x: number): number => Math.floor(x / 2);
const odd = (x: number): boolean => x % 2 === 1;

/** RFC 9162 §2.1.3.2: does `proof` put `leaf` at `index` in the tree of `treeSize` with `root`? */
export function verifyInclusion(leaf: Uint8Array, index: number, treeSize: number, proof: readonly Uint8Array[], root: Uint8Array): boolean {
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(treeSize) || index < 0 || index >= treeSize) return false;
  if (!isHash(leaf) || !proof.every(isHash)) return false;
  let fn = index;
  let sn = treeSize - 1;
  let r: Uint8Array = leaf;
  for (const p of proof) {
    if (sn === 0) return false;
    if (odd(fn) || fn === sn) {
      r = nodeHash(p, r);
      while (!odd(fn) && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    } else {
      r = nodeHash(r, p);
    }
    fn = half(fn);
    sn = half(sn);
  }
  return sn === 0 && equalHash(r, root);
}

/** RFC 9162 §2.1.4.2: does `proof` show the tree of size `n` with `rootN` extends size `m` with `rootM`? */
export function verifyConsistency(m: number, n: number, rootM: Uint8Array, rootN: Uint8Array, proof: readonly Uint8Array[]): boolean {
  if (!Number.isSafeInteger(m) || !Number.isSafeInteger(n) || m < 0 || m > n) return false;
  if (!proof.every(isHash)) return false;
  if (m === n) return proof.length === 0 && equalHash(rootM, rootN);
  // Every tree extends the empty tree; there is nothing to prove.
  if (m === 0) return proof.length === 0;
  if (proof.length === 0) return false;
  // A power-of-two first tree is itself a node of the second; the path starts from it.
  const path = isPowerOfTwo(m) ? [rootM, ...proof] : [...proof];
  let fn = m - 1;
  let sn = n - 1;
  while (odd(fn)) {
    fn = half(fn);
    sn = half(sn);
  }
  let fr: Uint8Array = path[0]!;
  let sr: Uint8Array = path[0]!;
  for (let i = 1; i < path.length; i++) {
    const c = path[i]!;
    if (sn === 0) return false;
    if (odd(fn) || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      while (!odd(fn) && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn = half(fn);
    sn = half(sn);
  }
  return sn === 0 && equalHash(fr, rootM) && equalHash(sr, rootN);
}

function isPowerOfTwo(x: number): boolean {
  if (x < 1) return false;
  while (x % 2 === 0) x /= 2;
  return x === 1;
}

/** A complete subtree held by a {@link CompactRange}: leaves `[start, start + 2^level)`. */
export interface RangeNode {
  level: number;
  start: number;
  /** The 32 hash bytes as a latin1 string (`Buffer.from(hash, 'latin1')` for bytes). */
  hash: string;
}

/**
 * The right edge of a growing tree: at most log2(n) complete subtrees, enough to give
 * the root at the current size. Appending costs one leaf plus amortised one node hash.
 * @example const r = new CompactRange(); r.pushData('line'); r.root()
 */
export class CompactRange {
  private readonly nodes: RangeNode[] = [];
  private count = 0;

  /** Called for every complete subtree as it forms (leaves are level 0). */
  constructor(private readonly onNode?: (node: RangeNode) => void) {}

  /** Leaves pushed so far. */
  get size(): number {
    return this.count;
  }

  /** Appends a leaf given as its hash. */
  push(leaf: Uint8Array): void {
    this.pushBinary(Buffer.from(leaf.buffer, leaf.byteOffset, leaf.byteLength).toString('latin1'));
  }

  /** Appends a leaf given as its data (a string is hashed as UTF-8). */
  pushData(data: Uint8Array | string): void {
    this.pushBinary(leafHashBinary(data));
  }

  /**
   * Appends a complete subtree of 2^level leaves, given as its hash, where it fits: the range's
   * size must be a multiple of 2^level. The subtree's inner nodes are not reported to `onNode`.
   */
  pushSubtree(level: number, hash: Uint8Array): void {
    const width = 2 ** level;
    if (this.count % width !== 0) throw new Error(`CompactRange.pushSubtree: size ${this.count} is not a multiple of ${width}`);
    this.pushNode(level, Buffer.from(hash.buffer, hash.byteOffset, hash.byteLength).toString('latin1'), width);
  }

  private pushBinary(leaf: string): void {
    this.pushNode(0, leaf, 1);
  }

  private pushNode(level: number, hash: string, width: number): void {
    let node: RangeNode = { level, start: this.count, hash };
    this.count += width;
    this.onNode?.(node);
    for (let top = this.nodes.at(-1); top !== undefined && top.level === node.level; top = this.nodes.at(-1)) {
      this.nodes.pop();
      node = { level: node.level + 1, start: top.start, hash: nodeHashBinary(top.hash, node.hash) };
      this.onNode?.(node);
    }
    this.nodes.push(node);
  }

  /**
   * The held subtree hashes, leftmost (largest) first: one per set bit of the size. With the
   * size, all a range needs to go on growing: push them back with {@link pushSubtree}.
   */
  frontier(): Buffer[] {
    return this.nodes.map((n) => Buffer.from(n.hash, 'latin1'));
  }

  /** MTH(D[from:size]); `from` must be 0 or the start of one of the held subtrees. */
  root(from = 0): Buffer {
    if (this.count === 0 && from === 0) return emptyRoot();
    let r: string | null = null;
    for (let i = this.nodes.length - 1; i >= 0; i--) {
      const n = this.nodes[i]!;
      if (n.start < from) break;
      r = r === null ? n.hash : nodeHashBinary(n.hash, r);
      if (n.start === from) return Buffer.from(r, 'latin1');
    }
    throw new Error(`CompactRange.root: ${from} is not a subtree boundary at size ${this.count}`);
  }
}
