// The source of the SHA-256 WebAssembly module (sha256-wasm.ts runs it): the FIPS 180-4
// compression function written with a handful of instruction helpers, and the module around it
// in the WebAssembly binary format. Nothing at run time loads this file; the bytes it assembles
// are kept in sha256-wasm-bytes.ts, and test/core/crypto/sha256.test.ts fails when they differ.
import { LAYOUT } from './sha256-wasm.js';

/** FIPS 180-4 §4.2.2: the first 32 bits of the fractional parts of the cube roots of the first 64 primes. */
const K = [
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
];

// The few instructions the compression function needs (WebAssembly core spec, binary format).
type Code = (number | Code)[];
const uleb = (v: number): number[] => (v < 0x80 ? [v] : [(v & 0x7f) | 0x80, ...uleb(v >>> 7)]);
const sleb = (v: number): number[] => {
  const b = v & 0x7f;
  const rest = v >> 7;
  return (rest === 0 && (b & 0x40) === 0) || (rest === -1 && (b & 0x40) !== 0) ? [b] : [b | 0x80, ...sleb(rest)];
};
const get = (l: number): Code => [0x20, l]; // local.get
const set = (l: number, ...value: Code): Code => [...value, 0x21, l]; // local.set
const int = (v: number): Code => [0x41, ...sleb(v)]; // i32.const
const add = (...terms: Code[]): Code => [terms[0]!, ...terms.slice(1).map((t) => [t, 0x6a])]; // i32.add, wrapping
const sub = (x: Code, y: Code): Code => [x, y, 0x6b]; // i32.sub
const xor = (...terms: Code[]): Code => [terms[0]!, ...terms.slice(1).map((t) => [t, 0x73])]; // i32.xor
const and = (x: Code, y: Code): Code => [x, y, 0x71]; // i32.and
const or = (x: Code, y: Code): Code => [x, y, 0x72]; // i32.or
const below = (x: Code, y: Code): Code => [x, y, 0x49]; // i32.lt_u
const shl = (x: Code, n: number): Code => [x, int(n), 0x74]; // i32.shl
const shr = (x: Code, n: number): Code => [x, int(n), 0x76]; // i32.shr_u
const rotr = (x: Code, n: number): Code => [x, int(n), 0x78]; // i32.rotr
const load = (at: number, addr: Code): Code => [addr, 0x28, 2, ...uleb(at)]; // i32.load, 4-aligned, offset `at`
const byte = (at: number, addr: Code): Code => [addr, 0x2d, 0, ...uleb(at)]; // i32.load8_u
const store = (at: number, addr: Code, value: Code): Code => [addr, value, 0x36, 2, ...uleb(at)]; // i32.store
/** `do { body } while (cond)`: a loop that branches back while `cond` is not zero. */
const doWhile = (body: Code, cond: Code): Code => [0x03, 0x40, body, cond, 0x0d, 0, 0x0b]; // loop, br_if 0, end

// Locals: the block count (the parameter), then the block address, the counter, a..h and two temporaries.
const [N, P, I, A, B, C, D, E, F, G, H, T1, T2] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12] as const;
const VARS = [A, B, C, D, E, F, G, H];
const word = (i: Code): Code => shl(i, 2);
/** The address of word I of the block at P. */
const WORD_AT = add(get(P), word(get(I)));

/** compress(n): runs the n 64-byte blocks at LAYOUT.data through the state at LAYOUT.h; n is at least 1. */
const compress: Code = [
  set(P, int(LAYOUT.data)),
  doWhile(
    [
      // W[0..15]: the block's words, big-endian.
      set(I, int(0)),
      doWhile(
        [store(LAYOUT.w, word(get(I)), or(or(shl(byte(0, WORD_AT), 24), shl(byte(1, WORD_AT), 16)), or(shl(byte(2, WORD_AT), 8), byte(3, WORD_AT)))), set(I, add(get(I), int(1)))],
        below(get(I), int(16)),
      ),
      // W[16..63] = σ1(W[t-2]) + W[t-7] + σ0(W[t-15]) + W[t-16]
      doWhile(
        [
          set(T1, load(LAYOUT.w - 15 * 4, word(get(I)))),
          set(T2, load(LAYOUT.w - 2 * 4, word(get(I)))),
          store(
            LAYOUT.w,
            word(get(I)),
            add(
              xor(rotr(get(T2), 17), rotr(get(T2), 19), shr(get(T2), 10)),
              load(LAYOUT.w - 7 * 4, word(get(I))),
              xor(rotr(get(T1), 7), rotr(get(T1), 18), shr(get(T1), 3)),
              load(LAYOUT.w - 16 * 4, word(get(I))),
            ),
          ),
          set(I, add(get(I), int(1))),
        ],
        below(get(I), int(64)),
      ),
      VARS.map((v, k) => set(v, load(LAYOUT.h + 4 * k, int(0)))),
      set(I, int(0)),
      doWhile(
        [
          // T1 = h + Σ1(e) + Ch(e, f, g) + K[t] + W[t];  T2 = Σ0(a) + Maj(a, b, c)
          set(T1, add(get(H), xor(rotr(get(E), 6), rotr(get(E), 11), rotr(get(E), 25)), xor(get(G), and(get(E), xor(get(F), get(G)))), load(LAYOUT.k, word(get(I))), load(LAYOUT.w, word(get(I))))),
          set(T2, add(xor(rotr(get(A), 2), rotr(get(A), 13), rotr(get(A), 22)), or(and(get(A), get(B)), and(get(C), or(get(A), get(B)))))),
          set(H, get(G)),
          set(G, get(F)),
          set(F, get(E)),
          set(E, add(get(D), get(T1))),
          set(D, get(C)),
          set(C, get(B)),
          set(B, get(A)),
          set(A, add(get(T1), get(T2))),
          set(I, add(get(I), int(1))),
        ],
        below(get(I), int(64)),
      ),
      VARS.map((v, k) => store(LAYOUT.h + 4 * k, int(0), add(load(LAYOUT.h + 4 * k, int(0)), get(v)))),
      set(P, add(get(P), int(64))),
      set(N, sub(get(N), int(1))),
    ],
    get(N),
  ),
];

const flat = (code: Code): number[] => code.flatMap((c) => (typeof c === 'number' ? [c] : flat(c)));
const section = (id: number, body: number[]): number[] => [id, ...uleb(body.length), ...body];
const name = (s: string): number[] => [s.length, ...Array.from(s, (ch) => ch.charCodeAt(0))];

/** K as the little-endian words a data segment puts at LAYOUT.k. */
const kBytes = (): number[] => K.flatMap((w) => [w & 0xff, (w >>> 8) & 0xff, (w >>> 16) & 0xff, w >>> 24]);

/** The module: one function `c(i32)`, its memory `m` of LAYOUT.pages pages, and K in that memory. */
export function sha256Module(): Uint8Array {
  const body = [1, 12, 0x7f, ...flat(compress), 0x0b]; // one run of 12 i32 locals, the code, end
  const k = kBytes();
  return Uint8Array.from([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, [1, 0x60, 1, 0x7f, 0]), // type 0: (i32) -> ()
    ...section(3, [1, 0]), // function 0 has type 0
    ...section(5, [1, 0, LAYOUT.pages]), // one memory, at least that many pages
    ...section(7, [2, ...name('m'), 2, 0, ...name('c'), 0, 0]), // exports: memory 0, function 0
    ...section(10, [1, ...uleb(body.length), ...body]),
    ...section(11, [1, 0, ...flat(int(LAYOUT.k)), 0x0b, ...uleb(k.length), ...k]), // data: K into memory 0
  ]);
}
