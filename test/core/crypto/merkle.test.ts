import { describe, expect, it } from 'vitest';
import { alignedPieces, CompactRange, consistencyProof, emptyRoot, inclusionProof, leafHash, nodeHash, rootFromLeaves, verifyConsistency, verifyInclusion } from '../../../src/core/crypto/merkle.js';

const hex = (h: string): Buffer => Buffer.from(h, 'hex');

// RFC 6962 reference data, as published in transparency-dev/merkle (proof/verify_test.go,
// rfc6962/rfc6962_test.go) and certificate-transparency-go.
const LEAVES = ['', '00', '10', '2021', '3031', '40414243', '5051525354555657', '606162636465666768696a6b6c6d6e6f'].map(hex);
const ROOTS = [
  '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
  'fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125',
  'aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77',
  'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
  '4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4',
  '76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef',
  'ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c',
  '5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328',
].map(hex);
// `leaf` is 1-based, as in the published vectors.
const INCLUSION: { leaf: number; size: number; proof: string[] }[] = [
  { leaf: 1, size: 1, proof: [] },
  {
    leaf: 1,
    size: 8,
    proof: [
      '96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7',
      '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
      '6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4',
    ],
  },
  {
    leaf: 6,
    size: 8,
    proof: [
      'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b',
      'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0',
      'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
    ],
  },
  { leaf: 3, size: 3, proof: ['fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125'] },
  {
    leaf: 2,
    size: 5,
    proof: [
      '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
      '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
      'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b',
    ],
  },
];
const CONSISTENCY: { m: number; n: number; proof: string[] }[] = [
  { m: 1, n: 1, proof: [] },
  {
    m: 1,
    n: 8,
    proof: [
      '96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7',
      '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
      '6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4',
    ],
  },
  {
    m: 6,
    n: 8,
    proof: [
      '0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a',
      'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0',
      'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
    ],
  },
  {
    m: 2,
    n: 5,
    proof: ['5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e', 'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b'],
  },
  {
    m: 6,
    n: 7,
    proof: [
      '0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a',
      'b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f',
      'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
    ],
  },
];

const leafHashes = LEAVES.map((l) => leafHash(l));
const toHex = (hs: readonly Uint8Array[]): string[] => hs.map((h) => Buffer.from(h).toString('hex'));
const SOME_HASH = hex('abacaba000000000000000000000000000000000000000000060061e00123456');

function flipped(proof: readonly Uint8Array[], i: number): Uint8Array[] {
  return proof.map((p, j) => {
    if (j !== i) return p;
    const c = Buffer.from(p);
    c[0]! ^= 8;
    return c;
  });
}

function inclusionProbes(index: number, size: number, proof: Uint8Array[], root: Uint8Array, leaf: Uint8Array): [string, () => boolean][] {
  const probes: [string, () => boolean][] = [
    ['index - 1', () => verifyInclusion(leaf, index - 1, size, proof, root)],
    ['index + 1', () => verifyInclusion(leaf, index + 1, size, proof, root)],
    ['index ^ 2', () => verifyInclusion(leaf, index ^ 2, size, proof, root)],
    ['size * 2', () => verifyInclusion(leaf, index, size * 2, proof, root)],
    ['size / 2', () => verifyInclusion(leaf, index, Math.floor(size / 2), proof, root)],
    ['wrong leaf', () => verifyInclusion(Buffer.from('WrongLeaf'), index, size, proof, root)],
    ['empty root', () => verifyInclusion(leaf, index, size, proof, emptyRoot())],
    ['random root', () => verifyInclusion(leaf, index, size, proof, SOME_HASH)],
    ['trailing root', () => verifyInclusion(leaf, index, size, [...proof, root], root)],
    ['preceding root', () => verifyInclusion(leaf, index, size, [root, ...proof], root)],
    ['trailing garbage', () => verifyInclusion(leaf, index, size, [...proof, Buffer.alloc(0)], root)],
  ];
  for (let i = 0; i < proof.length; i++) probes.push([`flipped proof[${i}]`, () => verifyInclusion(leaf, index, size, flipped(proof, i), root)]);
  if (proof.length > 0) probes.push(['removed component', () => verifyInclusion(leaf, index, size, proof.slice(0, -1), root)]);
  if (proof.length > 1) probes.push(['inserted component', () => verifyInclusion(leaf, index, size, [proof[0]!, SOME_HASH, ...proof.slice(1)], root)]);
  return probes;
}

function consistencyProbes(m: number, n: number, r1: Uint8Array, r2: Uint8Array, proof: Uint8Array[]): [string, () => boolean][] {
  const probes: [string, () => boolean][] = [
    ['m - 1', () => verifyConsistency(m - 1, n, r1, r2, proof)],
    ['m + 1', () => verifyConsistency(m + 1, n, r1, r2, proof)],
    ['m ^ 2', () => verifyConsistency(m ^ 2, n, r1, r2, proof)],
    ['n * 2', () => verifyConsistency(m, n * 2, r1, r2, proof)],
    ['n / 2', () => verifyConsistency(m, Math.floor(n / 2), r1, r2, proof)],
    ['wrong root1', () => verifyConsistency(m, n, SOME_HASH, r2, proof)],
    ['wrong root2', () => verifyConsistency(m, n, r1, SOME_HASH, proof)],
    ['swapped roots', () => verifyConsistency(m, n, r2, r1, proof)],
    ['empty proof', () => verifyConsistency(m, n, r1, r2, [])],
    ['trailing root2', () => verifyConsistency(m, n, r1, r2, [...proof, r2])],
    ['preceding root1', () => verifyConsistency(m, n, r1, r2, [r1, ...proof])],
    ['preceding proof[0]', () => verifyConsistency(m, n, r1, r2, [proof[0]!, ...proof])],
    ['truncated proof', () => verifyConsistency(m, n, r1, r2, proof.slice(0, -1))],
  ];
  for (let i = 0; i < proof.length; i++) probes.push([`flipped proof[${i}]`, () => verifyConsistency(m, n, r1, r2, flipped(proof, i))]);
  return probes;
}

describe('RFC 6962 hashes', () => {
  it('hashes the empty tree, leaves and nodes as the published vectors say', () => {
    expect(emptyRoot().toString('hex')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(leafHash(Buffer.alloc(0)).toString('hex')).toBe('6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d');
    expect(leafHash('L123456').toString('hex')).toBe('395aa064aa4c29f7010acfe3f25db9485bbd4b91897b6ad7ad547639252b4d56');
    expect(nodeHash(Buffer.from('N123'), Buffer.from('N456')).toString('hex')).toBe('aa217fe888e47007fa15edab33c2b492a722cb106c64667fc2b044444de66bbb');
  });

  it('computes the published roots of the eight standard leaves at every size', () => {
    for (let n = 1; n <= 8; n++) expect(rootFromLeaves(leafHashes.slice(0, n)).toString('hex'), `size ${n}`).toBe(ROOTS[n - 1]!.toString('hex'));
    expect(rootFromLeaves([]).equals(emptyRoot())).toBe(true);
  });

  it('gives the root of any suffix that starts on a held subtree, and refuses others', () => {
    const range = new CompactRange();
    LEAVES.slice(0, 7).forEach((l) => range.pushData(l));
    // Size 7 holds [0,4), [4,6), [6,7).
    expect(range.root(4).equals(rootFromLeaves(leafHashes.slice(4, 7)))).toBe(true);
    expect(range.root(6).equals(leafHashes[6]!)).toBe(true);
    expect(() => range.root(5)).toThrow(/not a subtree boundary/);
  });

  it('splits a range into aligned subtrees that stop at every cut and grow the tree to its root', () => {
    expect(alignedPieces(4, 16, [10])).toEqual([2, 1, 1, 2]);
    expect(alignedPieces(0, 4096)).toEqual([12]);
    expect(alignedPieces(4096, 8192, [5000])).toEqual([9, 8, 7, 3, 3, 4, 5, 6, 10, 11]);
    const leaves = Array.from({ length: 70 }, (_, i) => leafHash(`e${i}`));
    for (let trial = 0; trial < 300; trial++) {
      const first = trial % 37;
      const end = first + 1 + ((trial * 7) % 33);
      const cuts = [...new Set(Array.from({ length: trial % 4 }, (_, k) => first + 1 + ((trial * 13 + k * 5) % (end - first))))].sort((a, b) => a - b);
      const range = new CompactRange();
      leaves.slice(0, first).forEach((l) => range.push(l));
      let at = first;
      for (const level of alignedPieces(first, end, cuts)) {
        const width = 2 ** level;
        expect(at % width, `aligned: ${first}..${end} cut ${cuts}`).toBe(0);
        expect(
          cuts.some((c) => c > at && c < at + width),
          `crosses a cut: ${first}..${end} cut ${cuts}`,
        ).toBe(false);
        range.pushSubtree(level, rootFromLeaves(leaves.slice(at, at + width)));
        at += width;
      }
      expect(at).toBe(end);
      expect(range.root().equals(rootFromLeaves(leaves.slice(0, end)))).toBe(true);
    }
  });

  it('grows a compact range to the same roots, one leaf at a time', () => {
    const range = new CompactRange();
    expect(range.root().equals(emptyRoot())).toBe(true);
    leafHashes.forEach((h, i) => {
      range.push(h);
      expect(range.root().toString('hex')).toBe(ROOTS[i]!.toString('hex'));
    });
  });
});

describe('inclusion proofs', () => {
  it('generates and verifies the published proofs, and rejects every corruption of them', () => {
    for (const v of INCLUSION) {
      const proof = inclusionProof(leafHashes.slice(0, v.size), v.leaf - 1);
      expect(toHex(proof), `leaf ${v.leaf} of ${v.size}`).toEqual(v.proof);
      const root = ROOTS[v.size - 1]!;
      expect(verifyInclusion(leafHashes[v.leaf - 1]!, v.leaf - 1, v.size, proof, root)).toBe(true);
      for (const [name, probe] of inclusionProbes(v.leaf - 1, v.size, proof, root, leafHashes[v.leaf - 1]!)) expect(probe(), name).toBe(false);
    }
  });

  it('rejects proofs for leaves outside the tree', () => {
    expect(verifyInclusion(SOME_HASH, 0, 0, [], emptyRoot())).toBe(false);
    expect(verifyInclusion(SOME_HASH, 2, 1, [], SOME_HASH)).toBe(false);
    expect(verifyInclusion(SOME_HASH, 0, 1, [], SOME_HASH)).toBe(true);
    expect(verifyInclusion(Buffer.alloc(0), 0, 1, [], Buffer.alloc(0))).toBe(false);
  });

  it('agrees with the reference for every leaf of every tree up to 64 leaves', () => {
    const hashes = Array.from({ length: 64 }, (_, i) => leafHash(`leaf ${i}`));
    for (let n = 1; n <= 64; n++) {
      const tree = hashes.slice(0, n);
      const root = rootFromLeaves(tree);
      for (let i = 0; i < n; i++) {
        const proof = inclusionProof(tree, i);
        expect(verifyInclusion(tree[i]!, i, n, proof, root), `${i} of ${n}`).toBe(true);
        if (n <= 16) for (const [name, probe] of inclusionProbes(i, n, proof, root, tree[i]!)) expect(probe(), `${i} of ${n}: ${name}`).toBe(false);
      }
    }
  });
});

describe('consistency proofs', () => {
  it('generates and verifies the published proofs, and rejects every corruption of them', () => {
    for (const v of CONSISTENCY) {
      const proof = consistencyProof(leafHashes, v.m, v.n);
      expect(toHex(proof), `${v.m} → ${v.n}`).toEqual(v.proof);
      const r1 = ROOTS[v.m - 1]!;
      const r2 = ROOTS[v.n - 1]!;
      expect(verifyConsistency(v.m, v.n, r1, r2, proof)).toBe(true);
      if (proof.length > 0) for (const [name, probe] of consistencyProbes(v.m, v.n, r1, r2, proof)) expect(probe(), `${v.m} → ${v.n}: ${name}`).toBe(false);
    }
  });

  it('treats the trivial sizes as the RFC does', () => {
    const [a, b] = [leafHash('a'), leafHash('b')];
    expect(verifyConsistency(0, 0, a, a, [])).toBe(true);
    expect(verifyConsistency(0, 1, a, b, [])).toBe(true);
    expect(verifyConsistency(1, 1, b, b, [])).toBe(true);
    expect(verifyConsistency(1, 1, a, b, [])).toBe(false);
    expect(verifyConsistency(1, 0, a, b, [])).toBe(false);
    expect(verifyConsistency(1, 2, a, b, [])).toBe(false);
    expect(verifyConsistency(0, 1, a, a, [emptyRoot()])).toBe(false);
    expect(verifyConsistency(1, 1, a, a, [emptyRoot()])).toBe(false);
  });

  it('agrees with the reference for every pair of sizes up to 64 leaves', () => {
    const hashes = Array.from({ length: 64 }, (_, i) => leafHash(`leaf ${i}`));
    const roots = Array.from({ length: 65 }, (_, n) => rootFromLeaves(hashes.slice(0, n)));
    for (let n = 1; n <= 64; n++) {
      for (let m = 0; m <= n; m++) {
        const proof = consistencyProof(hashes, m, n);
        expect(verifyConsistency(m, n, roots[m]!, roots[n]!, proof), `${m} → ${n}`).toBe(true);
        if (m > 0 && m < n) {
          expect(verifyConsistency(m, n, roots[m - 1]!, roots[n]!, proof), `${m} → ${n} with the root of ${m - 1}`).toBe(false);
          if (n <= 24) for (const [name, probe] of consistencyProbes(m, n, roots[m]!, roots[n]!, proof)) expect(probe(), `${m} → ${n}: ${name}`).toBe(false);
        }
      }
    }
  });
});

describe('a leaf given as text', () => {
  it('hashes as its UTF-8 bytes, whatever its length or characters, one leaf after another', () => {
    const texts = ['', 'a', 'caf\u00e9', '\u27e8!\u27e9 \u{1f512}', 'lone \ud800 surrogate', 'x'.repeat(5000), '\u00e9'.repeat(3000), 'after a long one'];
    for (const t of texts) expect(leafHash(t).equals(leafHash(Buffer.from(t, 'utf8'))), JSON.stringify(t.slice(0, 20))).toBe(true);
    const r = new CompactRange();
    const ref = new CompactRange();
    for (const t of texts) {
      r.pushData(t);
      ref.pushData(Buffer.from(t, 'utf8'));
    }
    expect(Buffer.from(r.root()).equals(Buffer.from(ref.root()))).toBe(true);
  });
});
