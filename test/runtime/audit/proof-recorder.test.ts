import { describe, expect, it } from 'vitest';
import { alignedPieces, CompactRange, consistencyProof, leafHash, rootFromLeaves } from '../../../src/core/crypto/merkle.js';
import { ProofRecorder } from '../../../src/runtime/audit/proof-recorder.js';

/** The recorder's proof for each pair is the reference proof over `leaves`. */
function expectReferenceProofs(recorder: ProofRecorder, leaves: Buffer[], pairs: readonly (readonly [number, number])[]): void {
  for (const [m, n] of pairs) {
    expect(
      recorder.proof(m, n)?.map((h) => h.toString('hex')),
      `${m} → ${n}`,
    ).toEqual(consistencyProof(leaves, m, n).map((h) => Buffer.from(h).toString('hex')));
  }
}

describe('ProofRecorder', () => {
  it('builds, in one pass, the same consistency proofs as the reference for every pair up to 40 leaves', () => {
    const leaves = Array.from({ length: 40 }, (_, i) => leafHash(`e${i}`));
    const pairs: [number, number][] = [];
    for (let n = 0; n <= 40; n++) for (let m = 0; m <= n; m++) pairs.push([m, n]);
    const recorder = new ProofRecorder(pairs);
    const range = new CompactRange(recorder.onNode);
    for (const leaf of leaves) {
      range.push(leaf);
      recorder.atSize(range);
    }
    expectReferenceProofs(recorder, leaves, pairs);
  });

  it("builds the same proofs from whole subtrees that stop only at the proofs' sizes, as the parallel verify joins them", () => {
    const leaves = Array.from({ length: 40 }, (_, i) => leafHash(`e${i}`));
    const lists: [number, number][][] = [
      [
        [5, 13],
        [13, 29],
      ],
      [
        [6, 38],
        [17, 21],
      ],
      [
        [11, 12],
        [12, 35],
        [35, 39],
      ],
    ];
    for (let n = 1; n <= 40; n++) for (let m = 1; m < n; m++) lists.push([[m, n]]);
    for (const pairs of lists) {
      const recorder = new ProofRecorder(pairs);
      const range = new CompactRange(recorder.onNode);
      const cuts = [...new Set(pairs.flat())].sort((a, b) => a - b);
      for (const level of alignedPieces(0, leaves.length, cuts)) {
        range.pushSubtree(level, rootFromLeaves(leaves.slice(range.size, range.size + 2 ** level)));
        recorder.atSize(range);
      }
      expectReferenceProofs(recorder, leaves, pairs);
    }
  });

  it('has no proof for a size the log never reached', () => {
    const recorder = new ProofRecorder([[3, 9]]);
    const range = new CompactRange(recorder.onNode);
    for (let i = 0; i < 6; i++) {
      range.push(leafHash(`e${i}`));
      recorder.atSize(range);
    }
    expect(recorder.proof(3, 9)).toBeNull();
  });
});
