// Installs the pinned agent CLIs (Claude Code, Qwen Code, Gemini CLI, Copilot CLI, OpenCode, Codex CLI) and the Claude Agent SDK the end-to-end tests run into a
// cache folder outside the repo, once per machine. Set GATEHOUSE_SKIP_AGENT_INSTALL=1 to skip
// (the end-to-end tests are then skipped); GATEHOUSE_AGENT_CACHE moves the cache.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

const AGENTS = [
  {
    name: 'claude-code',
    pkg: '@anthropic-ai/claude-code',
    version: '2.1.328',
    // The platform package ships the native binary; using it directly needs no postinstall step.
    bin: 'node_modules/@anthropic-ai/claude-code-linux-x64/claude',
  },
  { name: 'qwen-code', pkg: '@qwen-code/qwen-code', version: '0.24.4', bin: 'node_modules/.bin/qwen' },
  { name: 'gemini-cli', pkg: '@google/gemini-cli', version: '0.61.0', bin: 'node_modules/.bin/gemini' },
  { name: 'copilot-cli', pkg: '@github/copilot', version: '1.0.102', bin: 'node_modules/.bin/copilot' },
  { name: 'opencode', pkg: 'opencode-ai', version: '1.18.33', bin: 'node_modules/.bin/opencode' },
  {
    name: 'codex-cli',
    pkg: '@openai/codex',
    version: '0.171.0',
    // npm pulls the native binary in as an optional dependency aliased to the platform build
    // (`@openai/codex-linux-x64` → `@openai/codex@0.171.0-linux-x64`); run it directly.
    bin: 'node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex',
  },
  {
    // A library, not a CLI: the tests import it and point it at the Claude Code binary above,
    // so its own bundled copy of Claude Code (an optional platform package) is left out.
    name: 'claude-agent-sdk',
    pkg: '@anthropic-ai/claude-agent-sdk',
    version: '0.3.332',
    entry: 'node_modules/@anthropic-ai/claude-agent-sdk/sdk.mjs',
    npmArgs: ['--omit=optional'],
  },
];

/** True once the agent's binary runs (or, for a library, its entry file exists). */
function ready(dir, agent) {
  if (agent.entry) return existsSync(join(dir, agent.entry));
  const bin = join(dir, agent.bin);
  return existsSync(bin) && spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 60_000 }).status === 0;
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
