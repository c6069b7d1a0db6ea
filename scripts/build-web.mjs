// Builds the browser dashboard into dist/web: one minified bundle of src/web/app.ts plus
// the page, its styles and xterm's stylesheet, so `serve` needs no build step at run time.
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'web');
const started = Date.now();

mkdirSync(out, { recursive: true });
await build({
  entryPoints: [join(root, 'src', 'web', 'app.ts')],
  outfile: join(out, 'app.js'),
  bundle: true,
  platform: 'browser',
  format: 'esm',
  // Chromium, Firefox and Safari releases from 2022 on; the page uses private class fields and `??=`.
  target: ['es2022'],
  minify: true,
  sourcemap: false,
  legalComments: 'none',
  logLevel: 'warning',
});
for (const [from, to] of [
  [join(root, 'src', 'web', 'index.html'), 'index.html'],
  [join(root, 'src', 'web', 'styles.css'), 'styles.css'],
  [join(root, 'src', 'web', 'favicon.svg'), 'favicon.svg'],
  [join(root, 'node_modules', '@xterm', 'xterm', 'css', 'xterm.css'), 'xterm.css'],
]) {
  copyFileSync(from, join(out, to));
}
console.log(`built dist/web in ${Date.now() - started} ms`);
