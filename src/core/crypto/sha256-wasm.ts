// SHA-256 (FIPS 180-4) in a small WebAssembly module. A cold hook takes a few small digests;
// node:crypto costs it 2.5–3 ms to load, and the same hash in plain JavaScript costs more (the
// interpreter boxes every 32-bit sum, and the loop gets hot enough to be optimised on the main
// thread). This module, 0.9 KB, compiles and instantiates in about 0.3 ms, and hashes about
// 20 MB/s on its first, baseline-compiled code (250 MB/s once V8 optimises it). Its bytes are
// assembled from readable source in sha256-asm.ts; test/core/crypto/sha256.test.ts holds the two
// together, and the digests to node:crypto's.
import { SHA256_WASM_BASE64 } from './sha256-wasm-bytes.js';

/** Where the module keeps things in its memory: K, the state H, the schedule W, message blocks. */
export const LAYOUT = { k: 0, h: 256, w: 288, data: 1024, pages: 2 } as const;
/** Whole blocks the data region holds. */
const BLOCKS_PER_RUN = (LAYOUT.pages * 65536 - LAYOUT.data) / 64;

/** FIPS 180-4 §5.3.3: the initial hash value. */
const IV = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];

interface Engine {
  mem: Uint8Array;
  state: Int32Array;
  /** Runs that many blocks at LAYOUT.data through the state. */
  compress: (blocks: number) => void;
}
let engine: Engine | null = null;

function start(): Engine {
  const instance = new WebAssembly.Instance(new WebAssembly.Module(Buffer.from(SHA256_WASM_BASE64, 'base64')));
  const memory = instance.exports.m as WebAssembly.Memory;
  return { mem: new Uint8Array(memory.buffer), state: new Int32Array(memory.buffer, LAYOUT.h, 8), compress: instance.exports.c as (blocks: number) => void };
}

/** Whether this process can run WebAssembly (`--jitless` turns it off). */
export const wasmAvailable = (): boolean => typeof WebAssembly === 'object';

/**
 * Hex SHA-256 of `bytes`, hashed in WebAssembly.
 * @example sha256HexWasm(Buffer.from('abc')) // 'ba7816bf…'
 */
export function sha256HexWasm(bytes: Uint8Array): string {
  engine ??= start();
  const { mem, state, compress } = engine;
  state.set(IV);
  const n = bytes.length;
  let off = 0;
  for (const whole = n - (n % 64); off < whole;) {
    const blocks = Math.min(BLOCKS_PER_RUN, (whole - off) / 64);
    mem.set(bytes.subarray(off, off + blocks * 64), LAYOUT.data);
    compress(blocks);
    off += blocks * 64;
  }
  // The tail: the last bytes, a 1 bit, zeros, and the length in bits as 64 bits big-endian.
  const rest = n - off;
  const tail = rest + 9 <= 64 ? 64 : 128;
  mem.fill(0, LAYOUT.data, LAYOUT.data + tail);
  mem.set(bytes.subarray(off), LAYOUT.data);
  mem[LAYOUT.data + rest] = 0x80;
  const bits = new DataView(mem.buffer, LAYOUT.data + tail - 8, 8);
  bits.setUint32(0, Math.floor(n / 2 ** 29));
  bits.setUint32(4, (n << 3) >>> 0);
  compress(tail / 64);
  let hex = '';
  for (let k = 0; k < 8; k++) hex += (state[k]! >>> 0).toString(16).padStart(8, '0');
  return hex;
}
