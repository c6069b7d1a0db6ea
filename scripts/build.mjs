// The whole build, in the one order both `npm run build` and the tests' global setup use: dist/
// removed, then tsup (CLI, library, hook loader, gate worker), the hook's scripts, the dashboard,
// the native addon. Each step is its own process; the first that fails stops the build.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const STEPS = [
  join(root, 'node_modules', 'tsup', 'dist', 'cli-default.js'),
  join(root, 'scripts', 'build-hook.mjs'),
  join(root, 'scripts', 'build-web.mjs'),
  join(root, 'scripts', 'build-native.mjs'),
];

rmSync(join(root, 'dist'), { recursive: true, force: true });
for (const step of STEPS) {
  const r = spawnSync(process.execPath, [step], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) {
    process.stderr.write(`build: ${step.slice(root.length + 1)} failed (${r.error?.message ?? `exit ${r.status ?? r.signal}`})\n`);
    process.exit(1);
  }
}
