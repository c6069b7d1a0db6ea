// Builds native/inotify.c into dist/native/inotify.node with the system C compiler and Node's
// own headers (Node-API only). Optional: without a compiler or headers it says so and stops,
// and the warm scope check walks the whole worktree at every Stop, as it does off Linux.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist/native/inotify.node');

function headers() {
  const dirs = [process.env.npm_config_nodedir, resolve(process.execPath, '../..')].filter(Boolean).map((d) => join(d, 'include/node'));
  return dirs.find((d) => existsSync(join(d, 'node_api.h'))) ?? null;
}

function main() {
  if (process.platform !== 'linux') return skip('inotify is Linux only');
  const include = headers();
  if (include === null) return skip("Node's headers (node_api.h) were not found; set npm_config_nodedir");
  const cc = process.env.CC ?? 'cc';
  mkdirSync(dirname(out), { recursive: true });
  const tmp = `${out}.${process.pid}.tmp`;
  const args = ['-O2', '-shared', '-fPIC', '-Wall', '-Werror', `-I${include}`, '-DNODE_GYP_MODULE_NAME=inotify', '-o', tmp, join(root, 'native/inotify.c')];
  const r = spawnSync(cc, args, { stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.error !== undefined || r.status !== 0) {
    rmSync(tmp, { force: true });
    return skip(`${cc} failed${r.error ? `: ${r.error.message}` : ''}`);
  }
  renameSync(tmp, out);
}

function skip(why) {
  process.stderr.write(`build-native: not built (${why}); the warm scope check will walk the whole worktree at every Stop\n`);
}

main();
