// The peer for the side-by-side hook comparison: cc-safety-net from npm, pinned, installed by
// the benchmark itself into a cache folder outside the repo (never into package.json), once
// per machine. GATEHOUSE_BENCH_CACHE moves the cache.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { NODE, shq } from './common.mjs';

export const PEER = { pkg: 'cc-safety-net', version: '2.4.5', bin: 'node_modules/cc-safety-net/dist/bin/cc-safety-net.js' };

/** The cache folder for the benchmark's own downloads. */
function benchCache() {
  return process.env.GATEHOUSE_BENCH_CACHE || join(homedir(), '.cache', 'gatehouse-bench');
}

/** Installs the pinned peer if it is not there yet; the absolute path of its bin script. */
export function ensurePeer(log = () => {}) {
  const dir = join(benchCache(), `${PEER.pkg}@${PEER.version}`);
  const bin = join(dir, PEER.bin);
  if (existsSync(bin) && spawnSync(NODE, [bin, '--version'], { encoding: 'utf8', timeout: 30_000 }).stdout.includes(PEER.version)) return bin;
  log(`installing ${PEER.pkg}@${PEER.version} into ${dir} (once per machine)…`);
  // Install beside the final folder, then rename: an interrupted install never looks complete.
  const tmp = `${dir}.partial-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  writeFileSync(join(tmp, 'package.json'), '{"private": true}\n');
  try {
    execFileSync('npm', ['install', '--prefix', tmp, '--no-audit', '--no-fund', '--no-save', '--loglevel=error', `${PEER.pkg}@${PEER.version}`], {
      cwd: tmp,
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: 180_000,
    });
    const v = spawnSync(NODE, [join(tmp, PEER.bin), '--version'], { encoding: 'utf8', timeout: 30_000 });
    if (!v.stdout.includes(PEER.version)) throw new Error(`installed, but \`--version\` printed ${JSON.stringify((v.stdout || v.stderr).trim())}`);
    rmSync(dir, { recursive: true, force: true });
    renameSync(tmp, dir);
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    const detail = err.stderr ? err.stderr.toString().trim().split('\n').at(-1) : err.message;
    throw new Error(`could not install ${PEER.pkg}@${PEER.version}: ${detail}`);
  }
  return bin;
}

/**
 * The command its Claude Code plugin registers as a PreToolUse hook (every tool, no matcher):
 * `node "${CLAUDE_PLUGIN_ROOT}/dist/bin/cc-safety-net.js" hook --coding-cli`, with our absolute node.
 */
export function peerHookCommand(bin) {
  return `${shq(NODE)} ${shq(bin)} hook --coding-cli`;
}
