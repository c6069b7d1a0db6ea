// The doctor report: its JSON shape (`--json`, docs/agents.md), the human text (one block per
// agent, one line per gate) and the exit code.
import { safeForDisplay } from '../../core/display.js';
import { EXIT } from '../exit-codes.js';
import type { AgentReport } from '../../runtime/doctor/agent-report.js';

/** The version of the `--json` shape; bumped on an incompatible change. */
const REPORT_VERSION = 1;

/** What `gatehouse doctor --json` prints. */
export interface DoctorReport {
  v: number;
  /** False when a gate Gatehouse claims is BROKEN, or an agent named with --agent could not be run. */
  ok: boolean;
  agents: AgentReport[];
}

/** True when the agent's report fails the run: a claimed gate is BROKEN, or it was named and could not be run. */
function failed(a: AgentReport, named: boolean): boolean {
  return Object.values(a.gates).some((g) => g.state === 'BROKEN') || (named && a.skipped !== undefined);
}

/** The whole report of a run. */
export function doctorReport(agents: AgentReport[], named: boolean): DoctorReport {
  return { v: REPORT_VERSION, ok: !agents.some((a) => failed(a, named)), agents };
}

/** The exit code of a report: 0 all claimed gates fire, 1 otherwise. */
export function exitCodeOf(r: DoctorReport): number {
  return r.ok ? EXIT.ok : EXIT.failure;
}

function versionText(a: AgentReport): string {
  if (a.version === null) return 'version unknown';
  if (a.tested === null) return `version ${a.version}`;
  return a.tested ? `version ${a.version} (tested)` : `version ${a.version} (not the tested ${a.tested_version ?? '?'})`;
}

/** One block for an agent: a head line, one line per gate, what was not probed. */
function agentBlock(a: AgentReport): string {
  if (a.skipped !== undefined) return `${a.agent}: not run: ${a.skipped}\n`;
  const from = a.binary_from === 'cache' ? ' (agent cache)' : a.binary_from === 'project' ? ' (this project)' : '';
  const lines = [`${a.agent}: ${a.binary ?? '?'}${from}, ${versionText(a)}, ${(a.duration_ms / 1000).toFixed(1)} s`];
  for (const [gate, g] of Object.entries(a.gates)) lines.push(`  ${gate.padEnd(16)} ${g.state.padEnd(9)} ${safeForDisplay(g.evidence)}`);
  if (a.not_probed.length > 0) lines.push(`  not probed: ${a.not_probed.join(', ')} (claimed blocking; doctor does not drive them)`);
  for (const p of a.problems) lines.push(`  note: ${safeForDisplay(p)}`);
  return `${lines.join('\n')}\n`;
}

/** The human report. */
export function formatReport(r: DoctorReport): string {
  if (r.agents.length === 0) return 'doctor: no agent found on PATH or in the agent cache; name one with --agent\n';
  const broken = r.agents.flatMap((a) => Object.entries(a.gates).flatMap(([gate, g]) => (g.state === 'BROKEN' ? [`${a.agent} ${gate}`] : [])));
  const tail = broken.length > 0 ? `doctor: BROKEN: ${broken.join(', ')}` : r.ok ? 'doctor: every gate Gatehouse claims fired' : 'doctor: an agent named with --agent could not be run';
  return `${r.agents.map(agentBlock).join('\n')}\n${tail}\n`;
}
