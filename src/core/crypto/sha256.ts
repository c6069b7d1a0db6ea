// SHA-256 as hex, for the small digests a cold hook process takes (the pinned policy, the tool
// call's arguments, the code cache's name), and for every other hex SHA-256 Gatehouse takes.
// Loading node:crypto costs such a process 2.5–3 ms (it pulls in Node's stream modules), so the
// first few KB a process hashes go to a WebAssembly SHA-256 that compiles in a fraction of that,
// and everything after them to node:crypto, loaded then. The two give the same digest for every
// input (test/core/crypto/sha256.test.ts).
import { digest, nodeCrypto } from './digest.js';
import { sha256HexWasm, wasmAvailable } from './sha256-wasm.js';

/**
 * Bytes a process hashes in WebAssembly before it loads node:crypto for good. A cold hook takes a
 * few KB (the policy, the call's arguments); the module's first, baseline-compiled code runs about
 * 20 MB/s, so 16 KB cost it 0.8 ms, under node:crypto's 3 ms load. A process that hashes more (a
 * refusal sealing its evidence, a supervisor, a verify) gets native speed from there on.
 */
export const WASM_HASH_BUDGET = 16 * 1024;

type NodeHash = (data: string | Uint8Array) => string;
let nodeHash: NodeHash | null = null;
/** What is left of the budget; 0 without WebAssembly, or once it failed (V8 may refuse its memory: `ulimit -v`, flags). */
let wasmBytesLeft = wasmAvailable() ? WASM_HASH_BUDGET : 0;

function loadNodeHash(): NodeHash {
  nodeCrypto(); // loaded now, where the budget ran out, not at the first digest after it
  return (data) => digest('sha256', data, 'hex');
}

/**
 * Hashes everything with node:crypto from now on, for a process known to load it anyway (a Stop
 * seals its verdict with it), where the WebAssembly module would only add its start.
 */
export function useNativeHash(): void {
  nodeHash ??= loadNodeHash();
}

/**
 * Hex SHA-256 of `data` (a string is hashed as its UTF-8 bytes).
 * @example sha256Hex('abc') // 'ba7816bf…'
 */
export function sha256Hex(data: string | Uint8Array): string {
  if (nodeHash !== null) return nodeHash(data);
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  if (bytes.length <= wasmBytesLeft) {
    try {
      wasmBytesLeft -= bytes.length;
      return sha256HexWasm(bytes);
    } catch {
      wasmBytesLeft = 0; // node:crypto below gives the same digest
    }
  }
  nodeHash = loadNodeHash();
  return nodeHash(bytes);
}
