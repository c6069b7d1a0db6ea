// Installs the pinned agent CLIs (Claude Code, Qwen Code, Gemini CLI, Copilot CLI, OpenCode, Codex CLI) and the Claude Agent SDK the end-to-end tests run into a
// cache folder outside the repo, once per machine. Set GATEHOUSE_SKIP_AGENT_INSTALL=1 to skip
// (the end-to-end tests are then skipped); GATEHOUSE_AGENT_CACHE moves the cache.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';

// The pinned versions live in one place that doctor reads too (src/runtime/doctor/tested-agents.ts).
const AGENTS = JSON.parse(readFileSync(new URL('../src/runtime/doctor/tested-agents.json', import.meta.url), 'utf8'));

/** Written into an install once its binary ran on this kind of machine: later runs trust it instead of starting the agent again. */
const CHECKED = '.gatehouse-checked';
const HERE = `${process.platform}-${process.arch}\n`;

/**
 * True once the agent's binary runs (or, for a library, its entry file exists): asked once per
 * install and kind of machine, then remembered in the install folder (CHECKED).
 */
function ready(dir, agent) {
  if (agent.entry) return existsSync(join(dir, agent.entry));
  const bin = join(dir, agent.bin);
  if (!existsSync(bin)) return false;
  if (existsSync(join(dir, CHECKED)) && readFileSync(join(dir, CHECKED), 'utf8') === HERE) return true;
  if (!runs(bin)) return false;
  writeFileSync(join(dir, CHECKED), HERE);
  return true;
}

/**
 * Whether `bin --version` exits 0. It runs with a throwaway HOME, temp and XDG folders, removed
 * after: even asking its version an agent writes caches and logs (Copilot unpacks 235 MB into
 * ~/.cache/copilot, OpenCode writes ~/.local/share/opencode and /tmp/opencode), and none may land
 * in the user's own.
 */
function runs(bin) {
  const home = mkdtempSync(join(tmpdir(), 'gatehouse-version-'));
  try {
    const env = { HOME: home, TMPDIR: home, XDG_CONFIG_HOME: join(home, 'config'), XDG_CACHE_HOME: join(home, 'cache'), XDG_DATA_HOME: join(home, 'data'), XDG_STATE_HOME: join(home, 'state') };
    for (const name of ['PATH', 'LANG', 'LC_ALL', 'TZ']) if (process.env[name] !== undefined) env[name] = process.env[name];
    return spawnSync(bin, ['--version'], { timeout: 60_000, stdio: 'ignore', env, cwd: home }).status === 0;
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

if (process.env.GATEHOUSE_SKIP_AGENT_INSTALL === '1') {
  console.log('install-agents: skipped (GATEHOUSE_SKIP_AGENT_INSTALL=1); end-to-end tests will be skipped');
  process.exit(0);
}

const cache = process.env.GATEHOUSE_AGENT_CACHE || join(homedir(), '.cache', 'gatehouse-agents');
mkdirSync(cache, { recursive: true });

for (const agent of AGENTS) {
  const dir = join(cache, `${agent.name}@${agent.version}`);
  if (ready(dir, agent)) {
    console.log(`install-agents: ${agent.pkg}@${agent.version} ready`);
    continue;
  }
  console.log(`install-agents: installing ${agent.pkg}@${agent.version} into ${dir} (once per machine)…`);
  // Install beside the final folder, then rename: an interrupted install never looks complete.
  const tmp = `${dir}.partial-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  writeFileSync(join(tmp, 'package.json'), '{"private": true}\n');
  try {
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--no-save', '--loglevel=error', ...(agent.npmArgs ?? []), `${agent.pkg}@${agent.version}`], { cwd: tmp, stdio: 'inherit' });
  } catch {
    rmSync(tmp, { recursive: true, force: true });
    console.error(`install-agents: could not install ${agent.pkg}@${agent.version}. Check access to the npm registry, or set GATEHOUSE_SKIP_AGENT_INSTALL=1 to run without the end-to-end tests.`);
    process.exit(1);
  }
  if (!ready(tmp, agent)) {
    rmSync(tmp, { recursive: true, force: true });
    console.error(`install-agents: ${agent.pkg}@${agent.version} installed but its binary does not run on this machine (${process.platform}-${process.arch}).`);
    process.exit(1);
  }
  rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir);
  console.log(`install-agents: ${agent.pkg}@${agent.version} installed`);
}
