// `gatehouse doctor` with the real installed agents: every claimed gate proven blocking (exit 0),
// a silent failure caught (Codex hooks left untrusted: exit 1), usage errors (exit 2), a hang
// reported, and nothing left behind when it is interrupted.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentCacheDir, cachedAgentBinary } from '../../src/runtime/doctor/tested-agents.js';
import { sdkEntry } from '../../src/runtime/doctor/run/sdk-run.js';
import { probeFor } from '../../src/runtime/doctor/probes.js';
import { formatReport, type DoctorReport } from '../../src/cli/doctor/report.js';
import { CLI, gatehouse, tempDir } from '../support/cli.js';

const RUN_TEST_TIMEOUT_MS = 120_000;
const have = (agent: string): boolean => cachedAgentBinary(agent) !== null;

let base: string;
let tmp: string;
beforeAll(() => {
  base = tempDir('gh-doctor-base-');
  tmp = tempDir('gh-doctor-tmp-');
});
afterAll(() => {
  rmSync(base, { recursive: true, force: true });
  rmSync(tmp, { recursive: true, force: true });
});

/** PATH without any agent on it, so doctor finds the pinned binaries in the agent cache. */
const env = (): NodeJS.ProcessEnv => ({ GATEHOUSE_HOME: base, TMPDIR: tmp });

function doctor(args: string[], extra: NodeJS.ProcessEnv = {}): { status: number | null; report: DoctorReport; stderr: string } {
  const r = gatehouse(['doctor', '--json', ...args], { env: { ...env(), ...extra } });
  return { status: r.status, report: JSON.parse(r.stdout) as DoctorReport, stderr: r.stderr };
}

describe('gatehouse doctor usage', () => {
  it('refuses an unknown agent with exit 2 and lists the known ones', () => {
    const r = gatehouse(['doctor', '--agent', 'claud'], { env: env() });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('did you mean claude?');
    for (const a of ['claude', 'codex', 'gemini', 'qwen', 'copilot']) expect(r.stderr).toContain(a);
  });

  it('refuses --agent none with exit 2: it renders nothing to prove', () => {
    expect(gatehouse(['doctor', '--agent', 'none'], { env: env() }).status).toBe(2);
  });

  it('exits 1 for a named agent it cannot run, saying why', () => {
    const { status, report } = doctor(['--agent', 'cursor']);
    expect(status).toBe(1);
    expect(report.agents[0]?.skipped).toContain('no Cursor binary runs on this kind of machine');
    expect(formatReport(report)).toContain('cursor: not run: no Cursor binary');
  });

  it('refuses a timeout that is not a number of seconds with exit 2', () => {
    expect(gatehouse(['doctor', '--timeout', 'soon'], { env: env() }).status).toBe(2);
  });
});

describe.skipIf(!have('claude') || !have('codex') || !have('gemini'))('gatehouse doctor against the real agents', () => {
  it(
    'proves the write, completion and approvals gates blocking for Claude Code, Codex and Gemini, with evidence, and stores each result',
    () => {
      const { status, report, stderr } = doctor(['--agent', 'claude', '--agent', 'codex', '--agent', 'gemini']);
      expect(status, stderr).toBe(0);
      expect(report.v).toBe(1);
      expect(report.ok).toBe(true);
      expect(report.agents.map((a) => a.agent)).toEqual(['claude', 'codex', 'gemini']);
      for (const a of report.agents) {
        expect(a.binary_from).toBe('cache');
        expect(a.tested, a.agent).toBe(true);
        expect(a.version).toBe(a.tested_version);
        expect(a.gates.write_gate?.state, a.gates.write_gate?.evidence).toBe('blocking');
        expect(a.gates.write_gate?.evidence).toContain('doctor-outside.txt is outside this task');
        expect(a.gates.write_gate?.evidence).toContain('wrote src/doctor-canary.txt');
        expect(a.gates.completion_gate?.state, a.gates.completion_gate?.evidence).toBe('blocking');
        expect(a.gates.completion_gate?.evidence).toContain('GATEHOUSE_DOCTOR_CHECK_FAILED');
        expect(a.gates.approvals?.state, a.gates.approvals?.evidence).toBe('blocking');
        expect(a.not_probed).not.toContain('approvals');
        expect(a.gates.scope_check?.state, a.gates.scope_check?.evidence).toBe('blocking');
        expect(a.gates.scope_check?.evidence).toContain("found only the canary's own work");
        const stored = JSON.parse(readFileSync(join(base, 'doctor', `${a.agent}.json`), 'utf8')) as typeof a;
        expect(stored.gates).toEqual(a.gates);
      }
      const text = formatReport(report);
      expect(text).toMatch(/^claude: .*claude \(agent cache\), version 2\.1\.328 \(tested\), \d+\.\d s$/m);
      expect(text).toMatch(/^ {2}write_gate {7}blocking {2}refused doctor-outside\.txt/m);
      expect(text).toMatch(/^ {2}completion_gate {2}blocking {2}Stop refused/m);
      expect(text).toMatch(/^ {2}approvals {8}blocking {2}a Bash call waited in the approval queue; doctor rejected it/m);
      expect(text.trimEnd().split('\n').at(-1)).toBe('doctor: every gate Gatehouse claims fired');
      // Nothing of the runs is left in the temp folder.
      expect(readdirSync(tmp)).toEqual([]);
    },
    RUN_TEST_TIMEOUT_MS,
  );
});

describe('gatehouse doctor against Qwen Code, Copilot CLI and OpenCode', () => {
  for (const [agent, stop] of [
    ['qwen', 'blocking'],
    ['copilot', 'blocking'],
    ['opencode', 'none'],
  ] as const) {
    it.skipIf(!have(agent))(
      `proves every gate the ${agent} adapter claims blocking (its stop: ${stop})`,
      () => {
        const systemTmp = new Set(readdirSync('/tmp'));
        const { status, report, stderr } = doctor(['--agent', agent]);
        expect(status, stderr).toBe(0);
        // OpenCode extracts a native library into its temp folder on every run: doctor's own, removed with it.
        expect(readdirSync('/tmp').filter((f) => f.endsWith('.so') && !systemTmp.has(f))).toEqual([]);
        const a = report.agents[0]!;
        expect(a.tested).toBe(true);
        for (const gate of ['write_gate', 'scope_check', 'approvals'] as const) expect(a.gates[gate]?.state, `${gate}: ${a.gates[gate]?.evidence}`).toBe('blocking');
        expect(a.gates.completion_gate).toMatchObject({ state: stop, claimed: stop });
        expect(a.problems).toEqual([]);
        // OpenCode installs its plugin runtime into .opencode/ on its own: not counted against the task.
        expect(a.gates.scope_check?.evidence).toContain('src/doctor-canary.txt');
        expect(readdirSync(tmp)).toEqual([]);
      },
      RUN_TEST_TIMEOUT_MS,
    );
  }
});

const sdk = sdkEntry('/', agentCacheDir(process.env));

describe.skipIf(sdk === null || !have('claude'))('gatehouse doctor against the Claude Agent SDK', () => {
  it(
    'runs the SDK in-process with gatehouseHooks(), proving every gate, and prefers the SDK the current project installs',
    () => {
      const { status, report, stderr } = doctor(['--agent', 'claude-sdk']);
      expect(status, stderr).toBe(0);
      const a = report.agents[0]!;
      expect(a).toMatchObject({ agent: 'claude-sdk', binary_from: 'cache', tested: true });
      for (const gate of ['write_gate', 'completion_gate', 'scope_check', 'approvals'] as const) expect(a.gates[gate]?.state, `${gate}: ${a.gates[gate]?.evidence}`).toBe('blocking');
      // A project with its own SDK (here a link to the pinned one) is probed with that one.
      const project = tempDir('gh-doctor-sdk-project-');
      mkdirSync(join(project, 'node_modules', '@anthropic-ai'), { recursive: true });
      symlinkSync(dirname(sdk!.path), join(project, 'node_modules', '@anthropic-ai', 'claude-agent-sdk'));
      const r = gatehouse(['doctor', '--json', '--agent', 'claude-sdk'], { cwd: project, env: env() });
      expect(r.status, r.stderr).toBe(0);
      expect((JSON.parse(r.stdout) as DoctorReport).agents[0]).toMatchObject({ binary_from: 'project', version: a.version });
      // Found on its own (no --agent), the SDK is the pinned one: a project's node_modules is code the agent may have written.
      expect(probeFor('claude-sdk')!.locate!(process.env, null)).toMatchObject({ from: 'cache' });
      expect(probeFor('claude-sdk')!.locate!(process.env, project)).toMatchObject({ from: 'project' });
      rmSync(project, { recursive: true, force: true });
      expect(readdirSync(tmp)).toEqual([]);
    },
    RUN_TEST_TIMEOUT_MS,
  );
});

describe.skipIf(!have('opencode'))('gatehouse doctor sees an off-switch in the user environment', () => {
  it(
    'reports OpenCode BROKEN with OPENCODE_PURE=1 set, which loads no plugin, and names the variable',
    () => {
      const { status, report } = doctor(['--agent', 'opencode'], { OPENCODE_PURE: '1' });
      expect(status).toBe(1);
      const opencode = report.agents[0]!;
      expect(opencode.gates.write_gate?.state).toBe('BROKEN');
      expect(opencode.gates.write_gate?.evidence).toContain('the out-of-scope write landed');
      // The scope check still catches the write at the end: the net holds where the gate was off.
      expect(opencode.gates.scope_check?.evidence).toContain('caught doctor-outside.txt');
      expect(opencode.problems).toContain("OPENCODE_PURE=1 is set in your environment and was kept: it switches opencode's hooks off");
    },
    RUN_TEST_TIMEOUT_MS,
  );
});

describe.skipIf(!have('codex'))('gatehouse doctor catches a silent failure', () => {
  it(
    'reports BROKEN and exits 1 when Codex hooks are left untrusted, so Codex skips them without a word',
    () => {
      const { status, report } = doctor(['--agent', 'codex', '--skip-trust']);
      expect(status).toBe(1);
      expect(report.ok).toBe(false);
      const codex = report.agents[0]!;
      expect(codex.gates.write_gate?.state).toBe('BROKEN');
      expect(codex.gates.write_gate?.evidence).toContain('the out-of-scope write landed: doctor-outside.txt exists');
      expect(codex.gates.completion_gate?.state).toBe('BROKEN');
      expect(formatReport(report)).toContain('doctor: BROKEN: codex write_gate, codex completion_gate');
    },
    RUN_TEST_TIMEOUT_MS,
  );
});

/** Pids of processes whose working folder is inside `dir`. */
function processesIn(dir: string): number[] {
  return readdirSync('/proc').flatMap((name) => {
    if (!/^\d+$/.test(name)) return [];
    try {
      return readlinkSync(`/proc/${name}/cwd`).startsWith(dir) ? [Number(name)] : [];
    } catch {
      return [];
    }
  });
}

describe.skipIf(!have('gemini'))('gatehouse doctor cleans up', () => {
  it(
    'reports a hanging agent BROKEN (hang) within its timeout',
    () => {
      const { status, report } = doctor(['--agent', 'gemini', '--timeout', '0.5']);
      expect(status).toBe(1);
      const gates = Object.values(report.agents[0]?.gates ?? {});
      expect(gates.some((g) => g.state === 'BROKEN' && g.evidence.includes('hang: the agent did not exit within 1 s'))).toBe(true);
      expect(readdirSync(tmp)).toEqual([]);
    },
    RUN_TEST_TIMEOUT_MS,
  );

  it(
    'on SIGINT mid-run kills the agent, removes its temp folders and exits 130',
    async () => {
      const child = spawn(process.execPath, [CLI, 'doctor', '--agent', 'gemini'], { env: { ...process.env, ...env() }, stdio: ['ignore', 'pipe', 'pipe'] });
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      // Wait until the agent runs in the throwaway project (its `--version` runs elsewhere first).
      const isGemini = (pid: number): boolean => {
        try {
          return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('gemini');
        } catch {
          return false;
        }
      };
      const project = (): number[] => readdirSync(tmp).flatMap((d) => (d.startsWith('gatehouse-doctor-') ? processesIn(join(tmp, d, 'project')).filter(isGemini) : []));
      const deadline = Date.now() + 30_000;
      while (project().length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(project().length).toBeGreaterThan(0);
      expect(readdirSync(tmp).some((d) => d.startsWith('gatehouse-doctor-'))).toBe(true);
      child.kill('SIGINT');
      expect(await exited).toBe(130);
      await new Promise((r) => setTimeout(r, 200));
      expect(processesIn(tmp)).toEqual([]);
      expect(readdirSync(tmp)).toEqual([]);
      expect(existsSync(join(base, 'doctor', 'gemini.json.tmp'))).toBe(false);
    },
    RUN_TEST_TIMEOUT_MS,
  );
});
