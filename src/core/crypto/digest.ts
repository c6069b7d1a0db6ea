// A digest in one call: node:crypto's one-shot `hash` where Node has it (20.12+), which costs a
// third of a hash object for the small inputs Gatehouse hashes most (Merkle nodes, small files),
// and a hash object before that.
//
// node:crypto is taken with `require`, not `import * as`: in the hook's CommonJS scripts a
// namespace import becomes esbuild's interop copy of the module's ~70 exports into a new object,
// made again by each module that imports it, in every refusal and Stop. The module is loaded at
// the first digest, not when this file is.
import type { BinaryLike, BinaryToTextEncoding } from 'node:crypto';
import type * as NodeCrypto from 'node:crypto';
import { createRequire } from 'node:module';

type Digest = (algorithm: string, data: BinaryLike, encoding: BinaryToTextEncoding) => string;
let oneCall: Digest | null = null;

/** node:crypto itself; a built-in resolves the same from any path, and `require` is not there in an ES module. */
export function nodeCrypto(): typeof NodeCrypto {
  return createRequire('/')('node:crypto') as typeof NodeCrypto;
}

function pick(): Digest {
  const c = nodeCrypto();
  return typeof c.hash === 'function' ? (c.hash as Digest) : (algorithm, data, encoding) => c.createHash(algorithm).update(data).digest(encoding);
}

/**
 * `algorithm` of `data` in `encoding` (a string is hashed as its UTF-8 bytes).
 * @example digest('sha256', 'abc', 'hex') // 'ba7816bf…'
 */
export function digest(algorithm: string, data: BinaryLike, encoding: BinaryToTextEncoding): string {
  return (oneCall ??= pick())(algorithm, data, encoding);
}
