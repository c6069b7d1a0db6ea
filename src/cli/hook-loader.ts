// The hook command's entry, bundled as dist/hook/hook.js (CommonJS): it runs the hook itself
// (dist/hook/hook-body.cjs, and the later scripts it imports; scripts/build-hook.mjs) through a code
// cache, so that a hook process does not compile them again. V8's cache through node:vm serves every
// Node version; Node ≥ 22's own module compile cache could not load scripts the build split.
import { codeCacheDir, runScripts } from '../runtime/code-cache.js';

const eventAt = process.argv.indexOf('--event');
const event = eventAt > 0 ? (process.argv[eventAt + 1] ?? '').slice(0, 40) : '';
try {
  // The cache is written again until it holds the code of every path taken (allow, block, Stop…).
  runScripts(__dirname, 'hook-body.cjs', codeCacheDir(__dirname), () => `${event}:${String(process.exitCode ?? 0)}`, event);
} catch (err) {
  // The first script could not be loaded at all: a broken install, never a verdict on the call.
  process.stderr.write(`gatehouse hook: cannot load ${__dirname}/hook-body.cjs: ${(err as Error).message}\n`);
  process.exitCode = process.argv.includes('--fail-closed') ? 2 : 0;
}
