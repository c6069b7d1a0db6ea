// Hook latency as the agent feels it: whole-process wall time of the hook commands that
// `session start` rendered into .claude/settings.local.json, each run the way Claude Code
// runs a command hook (`/bin/sh -c`, the event JSON on stdin), against `node -e 0` run the
// same way, all cases interleaved so that drift in machine load hits every case alike.
// Cold path (a Node process per call), warm path (the bash client asking a running
// supervisor), and the same Bash event through a peer hook (cc-safety-net).
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { failed, metric } from './stats.mjs';
import { hasTransportOption, http, makeWorktree, NODE, runHookCommand, shq, startSession, startSupervisor, tempDir } from './common.mjs';
import { ensurePeer, PEER, peerHookCommand } from './peer.mjs';

const HOOK_METRICS = {
  baseline: 'hook.baseline.node_e0',
  cold: { allow: 'hook.cold.pretooluse_allow', block: 'hook.cold.pretooluse_block', stop: 'hook.cold.stop' },
  /** The required check's own process, started alone as the gate starts it (argv, no shell). */
  check: 'hook.cold.stop_check_alone',
  /** The cold Stop less the median of the check alone: Gatehouse's own cost of a Stop. */
  stopOwn: 'hook.cold.stop_excluding_checks',
  warm: { allow: 'hook.warm.pretooluse_allow', block: 'hook.warm.pretooluse_block', stop: 'hook.warm.stop' },
  ours: 'peer.gatehouse.pretooluse_bash',
  peer: 'peer.cc_safety_net.pretooluse_bash',
};

const CLAUDE_SESSION = '5f0c2a8e-bench-4c1d-9e7a-claude0session';

/** A small, real Claude Code transcript (the Stop's execution-list check reads it). */
function smallTranscript(file, cwd) {
  const base = { sessionId: CLAUDE_SESSION, cwd, version: '2.1.328', isSidechain: false };
  const lines = [
    { ...base, type: 'user', message: { role: 'user', content: 'Fix the failing date parser test' } },
    {
      ...base,
      type: 'assistant',
      message: {
        role: 'assistant',
        content: [
          {
            type: 'tool_use',
            id: 'toolu_1',
            name: 'TodoWrite',
            input: {
              todos: [
                { content: 'Fix the parser', status: 'completed', activeForm: 'Fixing the parser' },
                { content: 'Run the tests', status: 'completed', activeForm: 'Running the tests' },
              ],
            },
          },
        ],
      },
    },
    { ...base, type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'Todos have been modified successfully.' }] } },
    { ...base, type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'The parser is fixed and the tests pass.' }] } },
  ];
  writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  return file;
}

const common = (cwd, transcript, event) => ({ session_id: CLAUDE_SESSION, transcript_path: transcript, cwd, permission_mode: 'default', hook_event_name: event });
// Every call differs a little (content, description), as real calls do: identical calls in a row would trip the tool-loop watchdog.
const writeEvent = (cwd, transcript, file, i) =>
  JSON.stringify({
    ...common(cwd, transcript, 'PreToolUse'),
    tool_name: 'Write',
    tool_input: { file_path: join(cwd, file), content: `// revision ${i}\n${'x'.repeat(2000)}\n` },
    tool_use_id: `toolu_w${i}`,
  });
const bashEvent = (cwd, transcript, i) =>
  JSON.stringify({ ...common(cwd, transcript, 'PreToolUse'), tool_name: 'Bash', tool_input: { command: 'git status', description: `Show working tree status (${i})` }, tool_use_id: `toolu_b${i}` });
const stopEvent = (cwd, transcript) => JSON.stringify({ ...common(cwd, transcript, 'Stop'), stop_hook_active: false, last_assistant_message: 'The parser is fixed and the tests pass.' });

/** Claude Code's matcher rules: empty or `*` is every tool, a plain word list is exact names, anything else a regex. */
function coversBash(matcher) {
  if (matcher === '' || matcher === '*') return true;
  if (/^[\w\s,|-]+$/.test(matcher))
    return matcher
      .split(/[|,]/)
      .map((w) => w.trim())
      .includes('Bash');
  return new RegExp(matcher).test('Bash');
}

/** What Claude Code would read from a hook's stdout: a deny, an ask, a block or a halt is not an allow. */
function allowed(stdout) {
  const text = stdout.trim();
  if (!text.startsWith('{')) return true; // Claude Code parses stdout only when it is JSON
  const j = JSON.parse(text);
  const decision = j.hookSpecificOutput?.permissionDecision;
  return decision !== 'deny' && decision !== 'ask' && j.decision !== 'block' && j.continue !== false;
}
const explain = (r) => `exit ${r.status ?? r.signal}; stdout ${JSON.stringify(r.stdout.slice(0, 200))}; stderr ${JSON.stringify(r.stderr.trim().slice(0, 300))}`;

function expectAllow(r) {
  if (r.status !== 0 || !allowed(r.stdout)) throw new Error(`expected an allow (exit 0, no deny): ${explain(r)}`);
}
/** The write gate refuses with exit 2 and the reason (naming the file) on stderr, or a deny JSON. */
function expectBlock(r) {
  const viaExit = r.status === 2 && r.stderr.includes('package.json');
  const viaJson = r.status === 0 && r.stdout.trim().startsWith('{') && JSON.parse(r.stdout).hookSpecificOutput?.permissionDecision === 'deny';
  if (!viaExit && !viaJson) throw new Error(`expected the write to package.json to be refused: ${explain(r)}`);
}

/** One session with the three cases; `marker` is touched by its required producer on every Stop. */
function sessionCases(prefix, names, hooks, worktree, transcript, marker, verify) {
  const pre = hooks.PreToolUse.command;
  return [
    { name: names.allow, run: (i) => runHookCommand(pre, writeEvent(worktree, transcript, `src/file-${i}.ts`, i), { cwd: worktree }), check: expectAllow, verify, baselineOf: HOOK_METRICS.baseline },
    { name: names.block, run: (i) => runHookCommand(pre, writeEvent(worktree, transcript, 'package.json', i), { cwd: worktree }), check: expectBlock, verify, baselineOf: HOOK_METRICS.baseline },
    {
      name: names.stop,
      run: () => {
        rmSync(marker, { force: true });
        return runHookCommand(hooks.Stop.command, stopEvent(worktree, transcript), { cwd: worktree });
      },
      check: (r) => {
        expectAllow(r);
        if (!existsSync(marker)) throw new Error(`${prefix} Stop exited 0 but its required producer did not run`);
      },
      verify,
      baselineOf: HOOK_METRICS.baseline,
    },
  ];
}

/** Counts the warm calls the supervisor evaluated, so a silent fallback to the cold command cannot pass for a warm number. */
async function warmCounter(origin, token) {
  const read = async () => {
    const r = await http('GET', `${origin}/api/hooks/stats`, { headers: { authorization: `Bearer ${token}` } });
    return r.status === 200 && Array.isArray(r.json?.samples_us) ? r.json.samples_us : null;
  };
  const first = await read();
  if (first === null) return { note: 'not verified: the supervisor has no /api/hooks/stats', verify: async () => {}, serverMs: () => [] };
  let seen = first.length;
  const server = new Map();
  return {
    note: 'every call verified as answered by the supervisor (/api/hooks/stats)',
    serverMs: (name) => server.get(name) ?? [],
    verify: async (name) => {
      const now = await read();
      if (now === null) throw new Error('the supervisor stopped answering /api/hooks/stats');
      if (seen < 1000 && now.length !== seen + 1) throw new Error('the warm call was not answered by the supervisor (the client fell back to the cold command)');
      seen = now.length;
      if (!server.has(name)) server.set(name, []);
      server.get(name).push(now.at(-1) / 1000);
    },
  };
}

/**
 * Runs every hook case `runs` times after `warmup` rounds. Cases that cannot be set up
 * (e.g. `--transport warm` before it exists) or that fail a check become error metrics.
 */
export async function hookBench({ runs, warmup, log }) {
  const base = tempDir('gh-bench-hook-');
  const transcript = smallTranscript(join(base, 'transcript.jsonl'), base);
  const cases = [
    {
      name: HOOK_METRICS.baseline,
      run: () => runHookCommand(`${shq(NODE)} -e 0`, '', { cwd: base }),
      check: (r) => {
        if (r.status !== 0) throw new Error(explain(r));
      },
    },
  ];
  const errors = [];
  const notes = {};
  const targets = {};
  const transport = hasTransportOption();
  let supervisor = null;

  // Cold: a fresh Node process per call; `--transport command` once the option exists, so a
  // supervisor running elsewhere can never make this session warm.
  const coldWt = makeWorktree(join(base, 'cold'));
  const coldMarker = join(base, 'cold-producer-ran');
  let coldHooks = null;
  try {
    coldHooks = startSession({ worktree: coldWt, stateDir: join(base, 'cold-state'), id: 'bench-cold', require: [`ok=touch ${coldMarker}`], transport: transport ? 'command' : null });
    cases.push(...sessionCases('cold', HOOK_METRICS.cold, coldHooks, coldWt, transcript, coldMarker, null));
    cases.push({ name: HOOK_METRICS.check, run: () => timedSpawn('touch', [coldMarker], coldWt), check: expectAllow });
    // The allow path pays only a start from the code cache; a refusal also seals its audit event and evidence.
    targets[HOOK_METRICS.cold.allow] = [{ on: 'ratio', op: '<=', value: 1.15 }];
    targets[HOOK_METRICS.cold.block] = [{ on: 'ratio', op: '<=', value: 1.3 }];
  } catch (err) {
    for (const n of Object.values(HOOK_METRICS.cold)) errors.push(failed(n, 'ms', err, { baselineOf: HOOK_METRICS.baseline }));
  }

  // Warm: the session is started while a supervisor runs for its project, with `--transport warm`.
  const warmWt = makeWorktree(join(base, 'warm'));
  const warmState = join(base, 'warm-state');
  const warmMarker = join(base, 'warm-producer-ran');
  let counter = null;
  try {
    supervisor = await startSupervisor(warmWt, warmState);
    const hooks = startSession({ worktree: warmWt, stateDir: warmState, id: 'bench-warm', require: [`ok=touch ${warmMarker}`], transport: 'warm' });
    counter = await warmCounter(supervisor.origin, supervisor.token);
    for (const n of Object.values(HOOK_METRICS.warm)) notes[n] = counter.note;
    cases.push(...sessionCases('warm', HOOK_METRICS.warm, hooks, warmWt, transcript, warmMarker, counter.verify).map((c) => ({ ...c, baselineOf: c.name.replace('.warm.', '.cold.') })));
    for (const n of Object.values(HOOK_METRICS.warm))
      targets[n] = [
        { on: 'median', op: '<=', value: 15 },
        { on: 'ratio', op: '<=', value: 0.4 },
      ];
  } catch (err) {
    for (const n of Object.values(HOOK_METRICS.warm)) errors.push(failed(n, 'ms', err, { baselineOf: n.replace('.warm.', '.cold.') }));
  }

  // The peer, side by side: the same Bash event through our (cold) PreToolUse hook and through cc-safety-net.
  if (coldHooks && !coversBash(coldHooks.PreToolUse.matcher)) {
    errors.push(
      failed(HOOK_METRICS.ours, 'ms', `the rendered PreToolUse matcher ${JSON.stringify(coldHooks.PreToolUse.matcher)} does not cover Bash (the tool-loop watchdog or approvals make it "*")`, {
        baselineOf: HOOK_METRICS.peer,
      }),
    );
  } else if (coldHooks) {
    cases.push({
      name: HOOK_METRICS.ours,
      run: (i) => runHookCommand(coldHooks.PreToolUse.command, bashEvent(coldWt, transcript, i), { cwd: coldWt }),
      check: expectAllow,
      baselineOf: HOOK_METRICS.peer,
    });
  } else errors.push(failed(HOOK_METRICS.ours, 'ms', 'the cold session could not be started', { baselineOf: HOOK_METRICS.peer }));
  try {
    const bin = ensurePeer(log);
    // Its config and its audit log of denials go to the temp folder, not the user's home.
    const env = { ...process.env, CC_SAFETY_NET_HOME: join(base, 'cc-safety-net-home'), CC_SAFETY_NET_AUDIT_HOME: join(base, 'cc-safety-net-home') };
    const cmd = peerHookCommand(bin);
    // Make sure it really evaluates Bash: a destructive command must be denied.
    const probe = runHookCommand(cmd, bashEvent(coldWt, transcript, 0).replace('"git status"', '"git reset --hard"'), { cwd: coldWt, env });
    if (allowed(probe.stdout) && probe.status !== 2) throw new Error(`cc-safety-net did not deny \`git reset --hard\`, so it is not evaluating the event: ${explain(probe)}`);
    cases.push({ name: HOOK_METRICS.peer, run: (i) => runHookCommand(cmd, bashEvent(coldWt, transcript, i), { cwd: coldWt, env }), check: expectAllow, baselineOf: HOOK_METRICS.baseline });
    notes[HOOK_METRICS.peer] = `${PEER.pkg}@${PEER.version}, \`node …/cc-safety-net.js hook --coding-cli\` (its Claude Code plugin's command)`;
  } catch (err) {
    errors.push(failed(HOOK_METRICS.peer, 'ms', err, { baselineOf: HOOK_METRICS.baseline }));
  }

  const samples = new Map(cases.map((c) => [c.name, []]));
  const broken = new Map();
  try {
    for (let round = 0; round < warmup + runs; round++) {
      // Interleaved, starting at a different case each round so that no case always follows the same one.
      for (let k = 0; k < cases.length; k++) {
        const c = cases[(round + k) % cases.length];
        if (broken.has(c.name)) continue;
        try {
          const r = c.run(round);
          c.check(r);
          if (c.verify) await c.verify(c.name);
          if (round >= warmup) samples.get(c.name).push(r.ms);
        } catch (err) {
          broken.set(c.name, err);
        }
      }
      if ((round + 1) % 10 === 0) log(`hook latency: ${round + 1}/${warmup + runs} rounds`);
    }
  } finally {
    await supervisor?.stop();
  }

  const out = [...errors];
  for (const c of cases) {
    const extra = { baselineOf: c.baselineOf, ...(notes[c.name] ? { note: notes[c.name] } : {}) };
    if (targets[c.name]) extra.targetChecks = targets[c.name];
    if (broken.has(c.name)) out.push(failed(c.name, 'ms', broken.get(c.name), extra));
    else {
      const m = metric(c.name, 'ms', samples.get(c.name), extra);
      const server = counter?.serverMs(c.name) ?? [];
      if (server.length > 0) {
        m.server_median_ms = Number([...server].sort((a, b) => a - b)[server.length >> 1].toFixed(2));
        m.note = `${m.note}; the supervisor's own time per call: median ${m.server_median_ms} ms`;
      }
      out.push(m);
    }
  }
  const own = stopExcludingChecks(samples, broken);
  if (own !== null) out.push(own);
  if (!baselineOk(out)) log('hook latency: the node -e 0 baseline failed; ratios are missing');
  return out;
}

/** Runs argv directly (as the gate runs a required check) and times it. */
function timedSpawn(cmd, args, cwd) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.error) throw r.error;
  return { ms, status: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

/** Each cold Stop less the median run of its check alone, against `node -e 0`: the target is on Gatehouse's own part. */
function stopExcludingChecks(samples, broken) {
  const stop = samples.get(HOOK_METRICS.cold.stop);
  const check = samples.get(HOOK_METRICS.check);
  if (!stop?.length || !check?.length || broken.has(HOOK_METRICS.cold.stop) || broken.has(HOOK_METRICS.check)) return null;
  const checkMedian = [...check].sort((a, b) => a - b)[check.length >> 1];
  return metric(
    HOOK_METRICS.stopOwn,
    'ms',
    stop.map((ms) => ms - checkMedian),
    { baselineOf: HOOK_METRICS.baseline, targetChecks: [{ on: 'ratio', op: '<=', value: 1.5 }], note: `cold Stop minus the median of its required check alone (${checkMedian.toFixed(1)} ms)` },
  );
}

const baselineOk = (ms) => ms.some((m) => m.name === HOOK_METRICS.baseline && m.error === undefined);
