// The WebAssembly SHA-256 a cold hook hashes its small inputs with must give node:crypto's
// digest for every input: a wrong one would refuse a good policy, or pass a changed one. Its
// shipped bytes must also be the ones sha256-asm.ts assembles, so that what is reviewed runs.
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { WASM_HASH_BUDGET, sha256Hex, useNativeHash } from '../../../src/core/crypto/sha256.js';
import { sha256HexWasm } from '../../../src/core/crypto/sha256-wasm.js';
import { sha256Module } from '../../../src/core/crypto/sha256-asm.js';
import { SHA256_WASM_BASE64 } from '../../../src/core/crypto/sha256-wasm-bytes.js';

const node = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');
const BYTES_FILE = fileURLToPath(new URL('../../../src/core/crypto/sha256-wasm-bytes.ts', import.meta.url));

describe('the WebAssembly module', () => {
  it('is the one sha256-asm.ts assembles', () => {
    const assembled = Buffer.from(sha256Module()).toString('base64');
    if (process.env.GATEHOUSE_WRITE_WASM === '1' && assembled !== SHA256_WASM_BASE64) {
      const head = readFileSync(BYTES_FILE, 'utf8').split('\n').slice(0, 2).join('\n');
      writeFileSync(BYTES_FILE, `${head}\nexport const SHA256_WASM_BASE64 =\n  '${assembled}';\n`);
      return;
    }
    expect(SHA256_WASM_BASE64, 'sha256-wasm-bytes.ts is stale: regenerate it as its first lines say').toBe(assembled);
  });
});

describe('sha256HexWasm', () => {
  it('gives the FIPS 180-4 example digests', () => {
    const text = (s: string) => sha256HexWasm(Buffer.from(s, 'latin1'));
    expect(text('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(text('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(text('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')).toBe('248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1');
    expect(text('a'.repeat(1_000_000))).toBe('cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0');
  });

  it("equals node:crypto's digest at every length up to five blocks, across each padding boundary", () => {
    const data = randomBytes(64 * 5 + 1);
    for (let n = 0; n <= data.length; n++) expect(sha256HexWasm(data.subarray(0, n)), `length ${n}`).toBe(node(data.subarray(0, n)));
  });

  it('equals node:crypto across the end of the data region, where input is hashed in runs', () => {
    const region = 2 * 65536 - 1024;
    const data = randomBytes(2 * region + 200);
    for (const n of [region - 64, region - 1, region, region + 1, region + 63, region + 64, 2 * region, 2 * region + 200]) {
      expect(sha256HexWasm(data.subarray(0, n)), `length ${n}`).toBe(node(data.subarray(0, n)));
    }
  });

  it('equals node:crypto for bytes with the high bit set, and a view into a larger buffer', () => {
    const all = Buffer.alloc(300, 0xff);
    expect(sha256HexWasm(all)).toBe(node(all));
    const big = randomBytes(4096);
    const view = big.subarray(1000, 1777);
    expect(sha256HexWasm(view)).toBe(node(view));
  });

  it('starts each digest afresh: one hash leaves nothing behind for the next', () => {
    const a = randomBytes(1000);
    const first = sha256HexWasm(a);
    sha256HexWasm(randomBytes(70));
    expect(sha256HexWasm(a)).toBe(first);
  });
});

describe('sha256Hex', () => {
  it('hashes a string as its UTF-8 bytes, small and past the WebAssembly limit', () => {
    const samples = ['', 'plain', 'é ü ß', '中文字符', '🛡️ gatehouse', '\u0000 nul', 'lone \ud800 surrogates \udfff', 'x'.repeat(WASM_HASH_BUDGET), 'y'.repeat(WASM_HASH_BUDGET + 1)];
    // Twice over: the first round ends on node:crypto (the large input), the second runs on it throughout.
    for (let round = 0; round < 2; round++) for (const s of samples) expect(sha256Hex(s), `${round}: ${s.slice(0, 12)}`).toBe(node(s));
  });

  it('hashes bytes the same after node:crypto took over', () => {
    useNativeHash();
    for (let n = 0; n < 200; n += 7) {
      const b = randomBytes(n);
      expect(sha256Hex(b)).toBe(node(b));
    }
  });
});
