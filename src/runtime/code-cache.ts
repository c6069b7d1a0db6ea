// Runs a CommonJS bundle through a V8 code cache, so that a short-lived process (the hook, once per
// tool call) deserializes compiled code instead of parsing and compiling the bundle again.
//
// Trust: V8 checks a cache only against the source's *length* and its own version and flags (its
// checksum guards against corruption, not against a forger), so a cache made for other source of
// the same length is accepted and runs that other code. The cache therefore lives beside the bundle
// (`<bundle folder>/code-cache/`), never in the agent-writable state folder: whoever can write it
// can rewrite the bundle itself, so it grants no one anything. A cache that is missing, a link, a
// FIFO, over its cap, torn, or rejected by V8 is ignored and written again.
import { isAscii } from 'node:buffer';
import { lstatSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';
import { sha256Hex } from '../core/crypto/sha256.js';
import { writeFileAtomic } from './fs-atomic.js';
import { readSmallBytes } from './small-file.js';

/** Largest cache file read: the hook bundle's compiled code is about 1 MB; more is not ours. */
const MAX_CACHE_BYTES = 16 << 20;

/** First bytes of a cache file; a new layout gets a new magic, so old files are ignored, not misread. */
const MAGIC = 'GHCC1 ';

/** Longest header line (magic + the covered paths); a file without a newline before it is not a cache. */
const MAX_HEADER_BYTES = 512;

/** The function a CommonJS file's text is wrapped in, as Node's own loader does. */
const WRAP_HEAD = '(function (exports, require, module, __filename, __dirname) {';
const WRAP_TAIL = '\n})';

/** The cache folder of a bundle: beside it, so it is exactly as writable as the bundle. */
export function codeCacheDir(bundleFile: string): string {
  return join(dirname(bundleFile), 'code-cache');
}

/**
 * The cache's name: the bundle's content, Node's and V8's versions, the platform and the flags the
 * process runs with (V8 rejects a cache made under other flags, so each set gets its own file).
 * The content is named by the digest the build wrote beside the bundle (`<bundle>.sha256`) plus
 * the bundle's size, mtime and inode, so that a bundle changed by anything but the build still
 * gets a cache of its own; without that file the bundle is hashed here.
 */
function cacheName(bundleFile: string, wrapped: string): string {
  const built = readSmallBytes(`${bundleFile}.sha256`, 128)?.toString('latin1').trim() ?? '';
  let content: string;
  if (/^[0-9a-f]{64}$/.test(built)) {
    const st = statSync(bundleFile, { bigint: true });
    content = `${built}\0${st.size}\0${st.mtimeNs}\0${st.ino}`;
  } else content = sha256Hex(wrapped);
  const key = `${content}\0${process.version}\0${process.versions.v8}\0${process.arch}\0${process.execArgv.join(' ')}\0${process.env.NODE_OPTIONS ?? ''}`;
  return `bundle-${sha256Hex(key).slice(0, 32)}.v8cache`;
}

interface CacheFile {
  /** The paths (`event:exit code`) whose code the cache holds compiled. */
  covered: Set<string>;
  data: Buffer;
}

function readCache(file: string): CacheFile | null {
  const bytes = readSmallBytes(file, MAX_CACHE_BYTES);
  if (bytes === null) return null;
  const nl = bytes.indexOf(10);
  if (nl < 0 || nl > MAX_HEADER_BYTES) return null;
  const header = bytes.toString('latin1', 0, nl);
  if (!header.startsWith(MAGIC)) return null;
  return { covered: new Set(header.slice(MAGIC.length).split(',').filter(Boolean)), data: bytes.subarray(nl + 1) };
}

/** True when `dir` is a folder itself, not a link to one. */
function isFolder(dir: string): boolean {
  try {
    return lstatSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/** Writes the cache if the folder is ours to write (a real folder, not a link); any failure leaves it as it was. */
function writeCache(dir: string, file: string, covered: ReadonlySet<string>, data: Buffer): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    if (!isFolder(dir)) return;
    const header = Buffer.from(`${MAGIC}${[...covered].join(',')}\n`, 'latin1');
    if (header.length > MAX_HEADER_BYTES) return;
    // No fsync: a cache lost in a crash is made again; the rename still means it is never torn.
    writeFileAtomic(file, Buffer.concat([header, data]), { mode: 0o644, noSync: true });
  } catch {
    // A read-only install runs without a cache.
  }
}

/**
 * The bundle's text. The build makes it ASCII, which reads fastest as latin1 (a one-byte string, no
 * UTF-8 decoding); a bundle that is not ASCII (edited after the build) is decoded as UTF-8.
 */
function readSource(bundleFile: string): string {
  const bytes = readFileSync(bundleFile);
  return isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
}

/**
 * Runs `bundleFile` (CommonJS) through the code cache in `cacheDir`. `path()` names the code path the
 * run took, read when the process exits: when the cache did not yet hold that path's code (or there
 * was none, or V8 rejected it), it is written again with everything compiled by then.
 * @example runCached('/opt/gh/dist/hook/hook-body.cjs', codeCacheDir(file), () => `${event}:${process.exitCode}`)
 */
export function runCached(bundleFile: string, cacheDir: string, path: () => string): void {
  const wrapped = WRAP_HEAD + readSource(bundleFile) + WRAP_TAIL;
  const file = join(cacheDir, cacheName(bundleFile, wrapped));
  // Through a folder that is a link, the cache could be anyone's: read nothing from it.
  const cached = isFolder(cacheDir) ? readCache(file) : null;
  const script = new Script(wrapped, { filename: bundleFile, ...(cached !== null ? { cachedData: cached.data } : {}) });
  const usable = cached !== null && !script.cachedDataRejected;
  process.once('exit', () => {
    const taken = path();
    if (usable && cached.covered.has(taken)) return;
    const covered = new Set(usable ? cached.covered : []);
    covered.add(taken);
    writeCache(cacheDir, file, covered, script.createCachedData());
  });
  const fn = script.runInThisContext() as (exports: object, require: NodeJS.Require, module: object, filename: string, dirname: string) => void;
  const module = { exports: {} };
  fn.call(module.exports, module.exports, createRequire(bundleFile), module, bundleFile, dirname(bundleFile));
}
