// `gatehouse doctor`: proves, on this machine, that each installed agent really runs the hooks
// Gatehouse renders, by one scripted run per agent in a throwaway project (docs/agents.md).
import { Command, Option } from 'commander';
import { capabilitiesFor, knownAgents, NO_AGENT, parseAgentName } from '../../adapters/registry.js';
import { agentPrograms } from '../../adapters/agent-programs.js';
import { probeFor, UNPROBED } from '../../runtime/doctor/probes.js';
import { stateBase } from '../../runtime/state-base.js';
import { EXIT, UserError } from '../exit-codes.js';
import { printJson } from '../context.js';
import { findAgentBinary, type FoundBinary } from '../doctor/binary.js';
import { DoctorCleanup } from '../doctor/cleanup.js';
import { probeAgent, reportHead } from '../doctor/probe-agent.js';
import { doctorReport, exitCodeOf, formatReport } from '../doctor/report.js';
import { storeResult, type AgentReport } from '../../runtime/doctor/agent-report.js';

/** Per-agent limit: a run takes 1-15 s here; past this the agent is reported as hanging (BROKEN). */
const DEFAULT_TIMEOUT_S = 60;

const collect = (value: string, prev: string[]): string[] => [...prev, value];

interface DoctorFlags {
  agent: string[];
  json?: boolean;
  timeout: string;
  skipTrust?: boolean;
}

/** The agents to probe: those named (canonical, deduplicated), else every known one. */
function chosenAgents(named: string[]): string[] {
  if (named.length === 0) return knownAgents();
  const out: string[] = [];
  for (const name of named) {
    const r = parseAgentName(name);
    if (!r.ok) throw new UserError(r.reason, EXIT.usage);
    if (r.value === NO_AGENT) throw new UserError(`--agent ${NO_AGENT} renders no hooks, so there is nothing to prove; name one of: ${knownAgents().join(', ')}`, EXIT.usage);
    if (!out.includes(r.value)) out.push(r.value);
  }
  return out;
}

/** The report of a probe that threw: a bug in doctor, said as such, and every claimed gate unproven. */
function crashed(agent: string, bin: FoundBinary, err: unknown): AgentReport {
  const report = reportHead(agent, bin);
  const why = `doctor itself failed, so nothing was proven: ${err instanceof Error ? err.message : String(err)}`;
  for (const gate of ['write_gate', 'completion_gate'] as const) {
    const c = capabilitiesFor(agent)[gate];
    report.gates[gate] = c.level === 'blocking' ? { state: 'BROKEN', claimed: 'blocking', evidence: why } : { state: 'none', claimed: 'none', evidence: c.reason };
  }
  return report;
}

async function runDoctor(flags: DoctorFlags): Promise<void> {
  const timeoutS = Number(flags.timeout);
  if (!Number.isFinite(timeoutS) || timeoutS <= 0) throw new UserError(`--timeout must be a number of seconds, got ${JSON.stringify(flags.timeout)}`, EXIT.usage);
  const named = flags.agent.length > 0;
  const agents = chosenAgents(flags.agent);
  const base = stateBase(process.env);
  const cleanup = new DoctorCleanup();
  const reports: AgentReport[] = [];
  try {
    for (const agent of agents) {
      const probe = probeFor(agent);
      const programs = probe?.programs ?? agentPrograms().find((a) => a.agent === agent)?.programs ?? [];
      const bin = probe?.locate !== undefined ? probe.locate(process.env, named ? process.cwd() : null) : findAgentBinary(agent, programs, process.env);
      if (probe === undefined || bin === null) {
        // Without --agent, an agent that is not installed is simply not this machine's; one that is
        // installed but cannot be probed is said, so its silence is not read as a pass.
        if (!named && (bin === null || probe !== undefined)) continue;
        reports.push({ ...reportHead(agent, null), skipped: probe === undefined ? (UNPROBED[agent] ?? 'doctor has no probe for it') : 'not found on PATH or in the agent cache' });
        continue;
      }
      if (!flags.json) process.stderr.write(`doctor: running ${agent} (${bin.path})…\n`);
      const report = await probeAgent(probe, bin, { timeoutMs: timeoutS * 1000, skipTrust: flags.skipTrust === true, cleanup }).catch((err: unknown) => crashed(agent, bin, err));
      storeResult(base, report);
      reports.push(report);
    }
  } finally {
    cleanup.dispose();
  }
  const report = doctorReport(reports, named);
  if (flags.json) printJson(report);
  else process.stdout.write(formatReport(report));
  process.exitCode = exitCodeOf(report);
}

/** `gatehouse doctor [--agent NAME…] [--json]`. */
export function doctorCommand(): Command {
  return new Command('doctor')
    .description("prove on this machine that each installed agent runs Gatehouse's hooks: one scripted offline run per agent in a throwaway project (exit 1 when a claimed gate is BROKEN)")
    .option('--agent <name>', `agent to probe (repeatable): ${knownAgents().join(', ')}; default: every one found on PATH or in the agent cache`, collect, [])
    .option('--json', 'print the report as JSON')
    .option('--timeout <seconds>', 'per-agent limit; an agent still running then is reported BROKEN (hang)', String(DEFAULT_TIMEOUT_S))
    .addOption(new Option('--skip-trust', "diagnostic: undo the session's agent trust step before the run, to see a silent failure reported").hideHelp())
    .action(runDoctor);
}
