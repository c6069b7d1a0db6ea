// Builds the browser dashboard into dist/web: minified bundles of src/web/app.ts and of the
// approval page's src/web/approve.ts, plus the pages, their styles and xterm's stylesheet, so
// `serve` needs no build step at run time.
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'web');
const started = Date.now();

mkdirSync(out, { recursive: true });
await build({
  // The dashboard, and the single-use approval page a notification links to.
  entryPoints: { app: join(root, 'src', 'web', 'app.ts'), approve: join(root, 'src', 'web', 'approve.ts') },
  outdir: out,
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
  [join(root, 'src', 'web', 'approve.html'), 'approve.html'],
  [join(root, 'src', 'web', 'styles.css'), 'styles.css'],
  [join(root, 'src', 'web', 'favicon.svg'), 'favicon.svg'],
  [join(root, 'node_modules', '@xterm', 'xterm', 'css', 'xterm.css'), 'xterm.css'],
]) {
  copyFileSync(from, join(out, to));
}
console.log(`built dist/web in ${Date.now() - started} ms`);
