// The hook command's entry, bundled as dist/hook/hook.js (CommonJS): it runs the hook itself
// (dist/hook/hook-body.cjs) through a code cache, so that a hook process does not compile it again.
import * as nodeModule from 'node:module';
import { join } from 'node:path';
import { codeCacheDir, runCached } from '../runtime/code-cache.js';

/** Node ≥ 22.1 caches compiled modules itself; Node 20 has only V8's cache through node:vm. */
const { enableCompileCache } = nodeModule as { enableCompileCache?: (dir: string) => unknown };

const body = join(__dirname, 'hook-body.cjs');
const eventAt = process.argv.indexOf('--event');
const event = eventAt > 0 ? (process.argv[eventAt + 1] ?? '') : '';
try {
  if (typeof enableCompileCache === 'function') {
    enableCompileCache(codeCacheDir(body));
    nodeModule.createRequire(body)(body);
  } else {
    // The cache is written again until it holds the code of every path taken (allow, block, Stop…).
    runCached(body, codeCacheDir(body), () => `${event.slice(0, 40)}:${String(process.exitCode ?? 0)}`);
  }
} catch (err) {
  // The bundle could not be loaded at all: a broken install, never a verdict on the call.
  process.stderr.write(`gatehouse hook: cannot load ${body}: ${(err as Error).message}\n`);
  process.exitCode = process.argv.includes('--fail-closed') ? 2 : 0;
}
