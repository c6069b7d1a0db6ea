// SHA-256 as hex, for the small digests a cold hook process takes (the pinned policy, the tool
// call's arguments, the code cache's name). Loading node:crypto costs such a process 2.5–3 ms (it
// pulls in Node's stream modules), so small inputs are hashed by a WebAssembly SHA-256 that
// compiles in a fraction of that, and large ones, where native speed matters more than the load,
// by node:crypto, loaded on first use. The two give the same digest for every input
// (test/core/crypto/sha256.test.ts).
import { createRequire } from 'node:module';
import type * as NodeCrypto from 'node:crypto';
import { sha256HexWasm, wasmAvailable } from './sha256-wasm.js';

/**
 * Largest input hashed in WebAssembly. A cold process runs the module's first, baseline-compiled
 * code at about 20 MB/s (16 KB in 0.8 ms, under node:crypto's 3 ms load); larger inputs (a
 * session's baseline, a big file) are mostly hashed on paths that load node:crypto anyway.
 */
export const WASM_HASH_MAX = 16 * 1024;

type NodeHash = (data: string | Uint8Array) => string;
let nodeHash: NodeHash | null = null;
/** False once WebAssembly is missing or failed: V8 may refuse its memory (`ulimit -v`, flags). */
let wasmUsable = wasmAvailable();

function loadNodeHash(): NodeHash {
  // A built-in resolves the same from any path; `require` itself is not there in an ES module.
  const c = createRequire('/')('node:crypto') as typeof NodeCrypto;
  return typeof c.hash === 'function' ? (data) => c.hash('sha256', data, 'hex') : (data) => c.createHash('sha256').update(data).digest('hex');
}

/**
 * Hashes everything with node:crypto from now on: for a process that loads it anyway (a Stop seals
 * its verdict with it) or lives for many calls (the supervisor's gate thread), where the
 * WebAssembly module would only add its start and run slower.
 */
export function useNativeHash(): void {
  nodeHash ??= loadNodeHash();
}

/**
 * Hex SHA-256 of `data` (a string is hashed as its UTF-8 bytes).
 * @example sha256Hex('abc') // 'ba7816bf…'
 */
export function sha256Hex(data: string | Uint8Array): string {
  if (nodeHash === null && wasmUsable) {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    if (bytes.length <= WASM_HASH_MAX) {
      try {
        return sha256HexWasm(bytes);
      } catch {
        wasmUsable = false; // node:crypto below gives the same digest
      }
    }
  }
  nodeHash ??= loadNodeHash();
  return nodeHash(data);
}
