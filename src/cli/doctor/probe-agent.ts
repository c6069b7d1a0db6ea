// One doctor probe: the installed agent binary, run once in a throwaway project under a canary
// session against the local scripted stand-in, read back into a state per gate.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSession } from '../../gate/session-lifecycle.js';
import { gatehouseHooks } from '../../gate/sdk-hooks.js';
import { endSession } from '../../gate/session-end.js';
import { capabilitiesFor } from '../../adapters/registry.js';
import { CANARY_ALLOW, canaryCheck, canaryFiles, canaryScript } from '../../runtime/doctor/canary.js';
import { completionGateResult, writeGateResult, type GateResult } from '../../runtime/doctor/evidence.js';
import type { AgentProbe, ProbeDirs } from '../../runtime/doctor/probes.js';
import { testedAgent } from '../../runtime/doctor/tested-agents.js';
import { hookBundlePath } from '../context.js';
import { binaryVersion, type FoundBinary } from './binary.js';
import type { AgentReport } from '../../runtime/doctor/agent-report.js';
import type { DoctorCleanup } from './cleanup.js';
import { probeApprovals } from './approvals-probe.js';
import { probeScope } from './scope-probe.js';
import { offSwitchEnv } from '../../adapters/agent-programs.js';
import { isoTime } from '../../core/iso-time.js';

/** Options of one probe. */
export interface ProbeOptions {
  timeoutMs: number;
  /** Diagnostic: put the files the trust step edited back as they were, to show a silent failure. */
  skipTrust: boolean;
  cleanup: DoctorCleanup;
}

const PROBED: readonly ('write_gate' | 'completion_gate')[] = ['write_gate', 'completion_gate'];

/** The environment of session start and of the agent: every home, XDG dir and Gatehouse state in `dirs`. */
function isolatedEnv(dirs: ProbeDirs, extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  // The user's own overrides must not reach the throwaway session.
  for (const name of ['GATEHOUSE_CODEX_BIN', 'CODEX_HOME', 'GEMINI_CLI_HOME', 'COPILOT_HOME', 'GATEHOUSE_CONFIG']) delete env[name];
  return {
    ...env,
    HOME: dirs.home,
    XDG_CONFIG_HOME: join(dirs.home, '.config'),
    XDG_CACHE_HOME: join(dirs.home, '.cache'),
    XDG_DATA_HOME: join(dirs.home, '.local', 'share'),
    XDG_STATE_HOME: join(dirs.home, '.local', 'state'),
    GATEHOUSE_HOME: join(dirs.root, 'gatehouse'),
    ...extra,
  };
}

function makeDirs(): ProbeDirs {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'gatehouse-doctor-')));
  const dirs = { root, project: join(root, 'project'), home: join(root, 'home'), scratch: join(root, 'scratch') };
  for (const dir of [dirs.project, join(dirs.project, 'src'), dirs.home, dirs.scratch]) mkdirSync(dir, { recursive: true });
  return dirs;
}

/** Snapshots files so they can be put back exactly (absent files are removed again). */
function snapshot(files: string[]): () => void {
  const before = files.map((f) => [f, existsSync(f) ? readFileSync(f) : null] as const);
  return () => {
    for (const [f, content] of before) {
      if (content === null) rmSync(f, { force: true });
      else writeFileSync(f, content);
    }
  };
}

/** The report fields that do not depend on the run. */
export function reportHead(agent: string, bin: FoundBinary | null, versionOf: (path: string) => string | null = binaryVersion): AgentReport {
  const tested = testedAgent(agent)?.version ?? null;
  const version = bin === null ? null : versionOf(bin.path);
  return {
    agent,
    binary: bin?.path ?? null,
    binary_from: bin?.from ?? null,
    version,
    tested_version: tested,
    tested: tested === null || version === null ? null : version === tested,
    checked_at: isoTime(),
    duration_ms: 0,
    gates: {},
    not_probed: [],
    problems: [],
  };
}

/** Runs `probe` once with the binary `bin` and reports each gate. */
export async function probeAgent(probe: AgentProbe, bin: FoundBinary, opts: ProbeOptions): Promise<AgentReport> {
  const started = Date.now();
  const report = reportHead(probe.agent, bin, probe.version);
  const caps = capabilitiesFor(probe.agent);
  report.not_probed = Object.entries(caps)
    .filter(([gate, c]) => c.level === 'blocking' && !(PROBED as readonly string[]).includes(gate) && !(gate === 'approvals' && probe.approvalCall !== undefined))
    .map(([gate]) => gate);
  const dirs = makeDirs();
  opts.cleanup.addRoot(dirs.root);
  const files = canaryFiles(dirs.project);
  const stopClaimed = caps.completion_gate.level === 'blocking';
  const stub = await probe.startStub(canaryScript(files, probe.write));
  // The run is isolated from the user's environment, except for what switches the agent's hooks off there.
  const keepEnv = offSwitchEnv(probe.agent, process.env);
  for (const [name, value] of Object.entries(keepEnv)) report.problems.push(`${name}=${value} is set in your environment and was kept: it switches ${probe.agent}'s hooks off`);
  try {
    probe.prepare?.(dirs, stub.url);
    const env = isolatedEnv(dirs, probe.env(dirs, bin.path));
    const putBack = opts.skipTrust ? snapshot(probe.trustFiles?.(dirs) ?? []) : null;
    const session = await startSession({
      agent: probe.agent,
      worktree: dirs.project,
      allow: [CANARY_ALLOW],
      require: stopClaimed ? [canaryCheck(files)] : [],
      stateDir: join(dirs.root, 'state'),
      env,
      nodePath: process.execPath,
      hookBundle: hookBundlePath(),
      transport: 'command',
    });
    if (!session.ok) {
      for (const gate of PROBED)
        report.gates[gate] = caps[gate].level === 'blocking' ? { state: 'BROKEN', claimed: 'blocking', evidence: `session start refused: ${session.reason}` } : none(caps[gate].reason);
      return report;
    }
    putBack?.();
    try {
      const hooks = probe.inProcess ? gatehouseHooks({ session: session.value.policy.session_id, worktree: dirs.project, stateDir: session.value.policy.state_dir }) : undefined;
      const run = await probe.run(dirs, stub, { bin: bin.path, timeoutMs: opts.timeoutMs, onSpawn: (pid) => opts.cleanup.addGroup(pid), keepEnv, hooks });
      const sent = stub.sent();
      report.gates.write_gate = caps.write_gate.level === 'blocking' ? writeGateResult(files, sent, run, opts.timeoutMs) : none(caps.write_gate.reason);
      report.gates.completion_gate = stopClaimed ? completionGateResult(files, sent, run, opts.timeoutMs) : none(caps.completion_gate.reason);
      report.gates.scope_check = await probeScope(session.value.store, files);
      report.problems.push(...stub.problems);
    } finally {
      const ended = endSession(session.value.store);
      if (!ended.ok) report.problems.push(`session end: ${ended.reason}`);
    }
    if (probe.approvalCall !== undefined && caps.approvals.level === 'blocking') report.gates.approvals = await probeApprovals(probe, bin.path, dirs, env, { ...opts, keepEnv });
    return report;
  } finally {
    await stub.close();
    opts.cleanup.release(dirs.root);
    report.duration_ms = Date.now() - started;
  }
}

function none(reason: string): GateResult {
  return { state: 'none', claimed: 'none', evidence: reason };
}
