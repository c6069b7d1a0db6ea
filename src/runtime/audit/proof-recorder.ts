// Consistency proofs between checkpoint sizes, built while verify streams the log once:
// it notes which subtree hashes each proof needs and keeps them as the tree grows.
import { consistencyPath, HASH_SIZE, subtreeLevel, type CompactRange, type RangeNode, type SubtreeHasher } from '../../core/crypto/merkle.js';

// Node keys pack (start, level); starts stay below 2^47, far past any real log.
const LEVELS = 64;
const PLACEHOLDER = Buffer.alloc(HASH_SIZE);

/**
 * Collects, for the size pairs given up front, the subtree hashes their RFC 6962
 * consistency proofs need: complete subtrees as they form, right-edge ranges at size n.
 * @example const r = new ProofRecorder([[3, 7]]); const range = new CompactRange(r.onNode); … r.proof(3, 7)
 */
export class ProofRecorder {
  private readonly nodes = new Map<number, Buffer | null>();
  /** Tree size → starts of right-edge ranges [start, size) wanted at that size. */
  private readonly edges = new Map<number, Map<number, Buffer | null>>();

  constructor(pairs: readonly (readonly [number, number])[]) {
    for (const [m, n] of pairs) {
      if (m < 0 || m > n) continue;
      consistencyPath(m, n, (start, end) => {
        const level = subtreeLevel(start, end);
        if (level >= 0) this.nodes.set(start * LEVELS + level, null);
        else {
          const wanted = this.edges.get(end) ?? new Map<number, Buffer | null>();
          wanted.set(start, null);
          this.edges.set(end, wanted);
        }
        return PLACEHOLDER;
      });
    }
  }

  /** Pass to the CompactRange constructor. */
  readonly onNode = (node: RangeNode): void => {
    if (this.nodes.size === 0) return;
    const key = node.start * LEVELS + node.level;
    if (this.nodes.has(key)) this.nodes.set(key, Buffer.from(node.hash, 'latin1'));
  };

  /** Call after each push: takes the right-edge ranges wanted at the range's size. */
  atSize(range: CompactRange): void {
    const wanted = this.edges.get(range.size);
    if (wanted === undefined) return;
    for (const start of wanted.keys()) wanted.set(start, range.root(start));
  }

  /** The proof from m to n, or null when the log ended before n. */
  proof(m: number, n: number): Buffer[] | null {
    let missing = false;
    const lookup: SubtreeHasher = (start, end) => {
      const level = subtreeLevel(start, end);
      const h = level >= 0 ? this.nodes.get(start * LEVELS + level) : this.edges.get(end)?.get(start);
      if (h === undefined || h === null) {
        missing = true;
        return PLACEHOLDER;
      }
      return h;
    };
    const path = consistencyPath(m, n, lookup).map((h) => Buffer.from(h));
    return missing ? null : path;
  }
}
