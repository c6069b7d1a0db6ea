// Runs the hook's CommonJS scripts (dist/hook/hook-*.cjs, scripts/build-hook.mjs) through V8's code
// cache, so that a short-lived process (the hook, once per tool call) deserializes compiled code
// instead of parsing and compiling it again, and loads a later script only when its code is needed.
//
// Trust: V8 checks a cache only against the source's *length* and its own version and flags (its
// checksum guards against corruption, not against a forger), so a cache made for other source of
// the same length is accepted and runs that other code. The cache therefore lives beside the scripts
// (`<folder>/code-cache/`), never in the agent-writable state folder: whoever can write it can
// rewrite the scripts themselves, so it grants no one anything. A cache that is missing, a link, a
// FIFO, over its cap, torn, or rejected by V8 is ignored and written again.
import { isAscii } from 'node:buffer';
import { closeSync, fstatSync, lstatSync, mkdirSync, openSync, readSync, type BigIntStats } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Script } from 'node:vm';
import { sha256Hex } from '../core/crypto/sha256.js';
import { writeFileAtomic } from './fs-atomic.js';
import { readSmallBytes } from './small-file.js';

/** Largest cache file read: the hook's largest script compiles to about 300 KB; more is not ours. */
const MAX_CACHE_BYTES = 16 << 20;

/** First bytes of a cache file; a new layout gets a new magic, so old files are ignored, not misread. */
const MAGIC = 'GHCC1 ';

/** Longest header line (magic + the covered paths); a file without a newline before it is not a cache. */
const MAX_HEADER_BYTES = 512;

/** A specifier that names a module of another script: `gh-script:<file>#<module>` (the build writes them). */
const SCRIPT_PREFIX = 'gh-script:';

/** A script's file name; anything else in a specifier is not ours, and is never joined to a path. */
const SCRIPT_NAME = /^hook-[a-z]+\.cjs$/;

/** The digest the build puts on a script's first line: `//gh-sha256:<hex>` of the rest. */
const BUILT_DIGEST = /^\/\/gh-sha256:([0-9a-f]{64})\n/;

/** The cache folder of the scripts in `dir`: beside them, so it is exactly as writable as they are. */
export function codeCacheDir(dir: string): string {
  return join(dir, 'code-cache');
}

interface Source {
  text: string;
  stat: BigIntStats;
}

/**
 * A script's text and its file's stat, both from one open file: a script replaced between a read
 * and a separate stat would file the old text's compiled code under the new file's name. The build
 * makes scripts ASCII, which reads fastest as latin1 (a one-byte string, no UTF-8 decoding); one
 * that is not (edited after the build) is UTF-8.
 */
function readSource(file: string): Source {
  const fd = openSync(file, 'r');
  try {
    const stat = fstatSync(fd, { bigint: true });
    const bytes = Buffer.allocUnsafe(Number(stat.size));
    let n = 0;
    for (let got = 1; got > 0 && n < bytes.length; n += got) got = readSync(fd, bytes, n, bytes.length - n, null);
    const used = bytes.subarray(0, n);
    return { text: isAscii(used) ? used.toString('latin1') : used.toString('utf8'), stat };
  } finally {
    closeSync(fd);
  }
}

/**
 * The cache's name: the script's content, Node's and V8's versions, the platform, the flags the
 * process runs with (V8 rejects a cache made under other flags, so each set gets its own file), and
 * the variant (the hook's event: a PreToolUse and a Stop compile different functions of a script).
 * The content is named by the digest the build wrote on the script's first line plus the file's
 * size, mtime and inode, so that a script changed by anything but the build still gets a cache of
 * its own; a script without that line is hashed here.
 */
function cacheName({ text, stat }: Source, variant: string): string {
  const built = BUILT_DIGEST.exec(text.slice(0, 80))?.[1];
  const content = built !== undefined ? `${built}\0${stat.size}\0${stat.mtimeNs}\0${stat.ino}` : sha256Hex(text);
  const key = `${content}\0${process.version}\0${process.versions.v8}\0${process.arch}\0${process.execArgv.join(' ')}\0${process.env.NODE_OPTIONS ?? ''}\0${variant}`;
  return `script-${sha256Hex(key).slice(0, 32)}.v8cache`;
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

interface Loaded {
  exports: { load?: (id: string) => unknown };
  script: Script;
  cacheFile: string;
  cached: CacheFile | null;
}

type ScriptFunction = (exports: object, require: (spec: string) => unknown, module: object, filename: string, dirname: string) => void;

/**
 * Runs the script `first` of the folder `dir` (a CommonJS function expression, as the build writes
 * it), and the others it names as the code that runs imports them. `path()` names the code path the
 * run took, read when the process exits: each script whose cache did not yet hold that path's code
 * (or had none, or was rejected by V8) is cached again with everything compiled by then.
 * @example runScripts('/opt/gh/dist/hook', 'hook-body.cjs', '/opt/gh/dist/hook/code-cache', () => `${event}:${process.exitCode}`, event)
 */
export function runScripts(dir: string, first: string, cacheDir: string, path: () => string, variant: string): void {
  const loaded = new Map<string, Loaded>();
  // Through a folder that is a link, the cache could be anyone's: read nothing from it.
  const readable = isFolder(cacheDir);

  const load = (name: string): Loaded['exports'] => {
    const known = loaded.get(name);
    if (known !== undefined) return known.exports;
    if (!SCRIPT_NAME.test(name)) throw new Error(`gatehouse hook: ${JSON.stringify(name)} is not a hook script`);
    const file = join(dir, name);
    const source = readSource(file);
    const cacheFile = join(cacheDir, cacheName(source, variant));
    const cached = readable ? readCache(cacheFile) : null;
    const script = new Script(source.text, { filename: file, ...(cached !== null ? { cachedData: cached.data } : {}) });
    const module = { exports: {} as Loaded['exports'] };
    // Known before it runs, as Node's require does, so that a cycle gets what it has exported so far.
    const entry: Loaded = { exports: module.exports, script, cacheFile, cached: cached !== null && !script.cachedDataRejected ? cached : null };
    loaded.set(name, entry);
    const fn = script.runInThisContext() as ScriptFunction;
    fn.call(module.exports, module.exports, requireFrom(file), module, file, dir);
    entry.exports = module.exports;
    return module.exports;
  };

  const requireFrom = (file: string): ((spec: string) => unknown) => {
    const nodeRequire = createRequire(file);
    return (spec) => {
      if (!spec.startsWith(SCRIPT_PREFIX)) return nodeRequire(spec);
      const hash = spec.indexOf('#');
      const from = load(spec.slice(SCRIPT_PREFIX.length, hash < 0 ? undefined : hash));
      if (hash < 0 || typeof from.load !== 'function') throw new Error(`gatehouse hook: cannot resolve ${spec}`);
      return from.load(spec.slice(hash + 1));
    };
  };

  process.once('exit', () => {
    const taken = path();
    for (const { script, cacheFile, cached } of loaded.values()) {
      if (cached?.covered.has(taken) === true) continue;
      const covered = new Set(cached?.covered ?? []);
      covered.add(taken);
      writeCache(cacheDir, cacheFile, covered, script.createCachedData());
    }
  });
  load(first);
}
