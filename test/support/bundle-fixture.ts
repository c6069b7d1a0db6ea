// Bundles a TypeScript fixture program (with the PostgreSQL driver) into one .mjs that a child
// `node` can run: tests run TypeScript, a child process needs JavaScript.
import { join, resolve } from 'node:path';
import { buildSync } from 'esbuild';

/** Writes `<dir>/<name>.mjs` from the fixture at `entry` (relative to the repository) and returns its path. */
export function bundleFixture(entry: string, dir: string, name: string): string {
  const out = join(dir, `${name}.mjs`);
  buildSync({
    entryPoints: [resolve(entry)],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile: out,
    logLevel: 'error',
    // pg's optional native binding (and its edge-runtime variant) is never used.
    external: ['pg-native', 'pg-cloudflare'],
    // The driver is CommonJS: its require() of built-ins needs a real require in an ES module.
    banner: { js: "import { createRequire as __ghRequire } from 'node:module'; const require = __ghRequire(import.meta.url);" },
  });
  return out;
}
