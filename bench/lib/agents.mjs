// Hook latency per agent: for every agent whose hooks are rendered into files, the
// PreToolUse-equivalent hook as that agent runs it (`/bin/sh -c <rendered command>`, its own
// payload shape on stdin), for an allowed write, cold (`--transport command`) and warm
// (`--transport warm`, one supervisor for all), interleaved with `node -e 0`.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { gatehouse, makeWorktree, NODE, runHookCommand, shq, startSupervisor, tempDir } from './common.mjs';
import { failed, metric } from './stats.mjs';

const AGENTS = {
  claude: {
    hook: (wt) => pick(json(wt, '.claude/settings.local.json').hooks.PreToolUse.flatMap((g) => g.hooks.map((h) => h.command))),
    payload: (wt, n) => ({ session_id: 'x', hook_event_name: 'PreToolUse', cwd: wt, tool_name: 'Write', tool_input: { file_path: join(wt, `src/f${n}.ts`), content: `v${n}` } }),
  },
  qwen: {
    hook: (wt) => pick(json(wt, '.qwen/settings.json').hooks.PreToolUse.flatMap((g) => g.hooks.map((h) => h.command))),
    payload: (wt, n) => ({ session_id: 'x', hook_event_name: 'PreToolUse', cwd: wt, tool_name: 'write_file', tool_input: { file_path: join(wt, `src/f${n}.ts`), content: `v${n}` } }),
  },
  gemini: {
    hook: (wt) => pick(json(wt, '.gemini/settings.json').hooks.BeforeTool.flatMap((g) => g.hooks.map((h) => h.command))),
    payload: (wt, n) => ({ session_id: 'x', hook_event_name: 'BeforeTool', cwd: wt, tool_name: 'write_file', tool_input: { file_path: join(wt, `src/f${n}.ts`), content: `v${n}` } }),
  },
  copilot: {
    hook: (wt) => pick(json(wt, '.github/hooks/gatehouse.json').hooks.preToolUse.map((h) => h.bash)),
    payload: (wt, n) => ({ sessionId: 'x', timestamp: 1, cwd: wt, toolName: 'create', toolArgs: { path: join(wt, `src/f${n}.ts`), file_text: `v${n}` } }),
  },
  codex: {
    hook: (wt) => pick(json(wt, '.codex/hooks.json').hooks.PreToolUse.flatMap((g) => g.hooks.map((h) => h.command))),
    payload: (wt, n) => ({
      session_id: 'x',
      turn_id: 't',
      hook_event_name: 'PreToolUse',
      cwd: wt,
      tool_name: 'apply_patch',
      tool_input: { command: `*** Begin Patch\n*** Add File: src/f${n}.ts\n+v${n}\n*** End Patch\n` },
      tool_use_id: `c${n}`,
    }),
  },
  cursor: {
    hook: (wt) => pick(json(wt, '.cursor/hooks.json').hooks.preToolUse.map((h) => h.command)),
    payload: (wt, n) => ({
      hook_event_name: 'preToolUse',
      conversation_id: 'c',
      generation_id: 'g',
      workspace_roots: [wt],
      tool_name: 'Write',
      tool_input: { file_path: join(wt, `src/f${n}.ts`), contents: `v${n}` },
    }),
  },
};

/** The Codex binary `scripts/install-agents.mjs` puts in the agent cache ('' when it is not there). */
function cachedCodex() {
  const cache = process.env.GATEHOUSE_AGENT_CACHE || join(homedir(), '.cache', 'gatehouse-agents');
  const bin = join(cache, 'codex-cli@0.171.0', 'node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex');
  return existsSync(bin) ? bin : '';
}

function json(wt, rel) {
  return JSON.parse(readFileSync(join(wt, rel), 'utf8'));
}

/** The Gatehouse command among an agent's hooks. */
function pick(commands) {
  const c = commands.find((x) => x.includes('--session'));
  if (!c) throw new Error('no Gatehouse hook rendered');
  return c;
}

/** An allow: every adapter answers one with exit 0 and nothing on stdout. */
function checkAllow(r) {
  if (r.status !== 0 || r.stdout.trim() !== '') throw new Error(`expected an allow: exit ${r.status} ${r.stdout.slice(0, 200)} ${r.stderr.slice(0, 200)}`);
}

export async function agentsBench({ runs, warmup, log }) {
  const base = tempDir('gh-bench-agents-');
  const state = join(base, 'state');
  // The agents' own homes, so trust entries never touch the user's files.
  const env = { ...process.env, GEMINI_CLI_HOME: join(base, 'gemini-home'), COPILOT_HOME: join(base, 'copilot-home'), CODEX_HOME: join(base, 'codex-home') };
  mkdirSync(env.CODEX_HOME);
  // Codex's hook trust goes through Codex itself: the pinned binary of the agent cache unless one is configured.
  env.GATEHOUSE_CODEX_BIN ||= cachedCodex();
  const supervisorWt = makeWorktree(join(base, 'supervisor'));
  const supervisor = await startSupervisor(supervisorWt, state);
  const cases = [{ name: 'agents.baseline.node_e0', run: () => runHookCommand(`${shq(NODE)} -e 0`, '', { cwd: base }), check: () => {} }];
  const errors = [];
  try {
    for (const [agent, spec] of Object.entries(AGENTS)) {
      for (const transport of ['command', 'warm']) {
        const name = `agents.${agent}.${transport === 'command' ? 'cold' : 'warm'}_allow`;
        try {
          const wt = makeWorktree(join(base, `${agent}-${transport}`));
          gatehouse(['session', 'start', '--agent', agent, '--worktree', wt, '--state-dir', state, '--id', `${agent}-${transport}`, '--allow', 'src/**', '--transport', transport], { env });
          const command = spec.hook(wt);
          if ((transport === 'warm') !== command.includes('warm.sh')) throw new Error(`the ${transport} session rendered ${command.slice(0, 80)}`);
          let n = 0;
          cases.push({ name, run: () => runHookCommand(command, JSON.stringify(spec.payload(wt, n++)), { cwd: wt, env }), check: checkAllow });
        } catch (err) {
          errors.push(failed(name, 'ms', err));
        }
      }
    }
    const samples = new Map(cases.map((c) => [c.name, []]));
    for (let i = 0; i < warmup + runs; i++) {
      // Each round starts at a different case, so drift in machine load hits all alike.
      for (let k = 0; k < cases.length; k++) {
        const c = cases[(i + k) % cases.length];
        if (!samples.has(c.name)) continue;
        try {
          const r = c.run();
          c.check(r);
          if (i >= warmup) samples.get(c.name).push(r.ms);
        } catch (err) {
          samples.delete(c.name);
          errors.push(failed(c.name, 'ms', err));
        }
      }
    }
    log?.(`agents: ${runs} rounds of ${cases.length} cases`);
    const out = [];
    for (const [name, xs] of samples) {
      const warm = name.endsWith('.warm_allow');
      const extra = name === 'agents.baseline.node_e0' ? {} : { baselineOf: warm ? name.replace('.warm_allow', '.cold_allow') : 'agents.baseline.node_e0' };
      out.push(metric(name, 'ms', xs, extra));
    }
    return [...out, ...errors];
  } finally {
    await supervisor.stop();
  }
}

/** Every metric name the group reports. */
export const AGENT_METRIC_NAMES = ['agents.baseline.node_e0', ...Object.keys(AGENTS).flatMap((a) => [`agents.${a}.cold_allow`, `agents.${a}.warm_allow`])];
