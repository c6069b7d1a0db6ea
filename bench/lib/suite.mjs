// The benchmark suite: runs every group (or the ones asked for), prints one table, and writes
// the results as JSON (atomically: a temp file beside it, then a rename).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, platform, release, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { agentsBench, AGENT_METRIC_NAMES } from './agents.mjs';
import { approvalBench } from './approval.mjs';
import { auditBench } from './audit.mjs';
import { CLI, cleanup, reap, ROOT } from './common.mjs';
import { hookBench } from './hooks.mjs';
import { notifyBench, NOTIFY_METRICS } from './notify.mjs';
import { ptyBench } from './pty.mjs';
import { sandboxBench, SANDBOX_METRICS } from './sandbox.mjs';
import { sdkBench } from './sdk.mjs';
import { curves, scaleBench, scaleMetricNames } from './scale.mjs';
import { writeCurves } from './plot.mjs';
import { failed, finish, table } from './stats.mjs';
import { teamBench, TEAM_METRICS } from './team.mjs';
import { teamApprovalBench, TEAM_APPROVAL_METRICS } from './team-approval.mjs';
import { verifierBench } from './verifier.mjs';

/** Sizes per mode: quick has fewer runs and smaller inputs, smoke the fewest; all report the same metrics. */
const MODES = {
  full: {
    hook: { runs: 40, warmup: 5 },
    agents: { runs: 20, warmup: 3 },
    verifier: { runs: 200, warmup: 30 },
    sdk: { runs: 200, warmup: 30 },
    approval: { runs: 30, warmup: 3 },
    teamApprovals: { runs: 30, warmup: 3 },
    notify: { runs: 30, warmup: 3 },
    audit: { events: 100_000, repeats: 3, perWriter: 500, parallelSizes: [10_000, 100_000, 1_000_000] },
    pty: { mb: 100, keys: 100, rounds: 3, floodMb: 50 },
    sandbox: { runs: 100, warmup: 10 },
    scale: { runs: 10, allowlist: [1, 10, 100, 1000], worktree: [1_000, 10_000, 50_000], audit: [10_000, 100_000, 1_000_000], approvals: [1, 10, 100], waitSeconds: 10 },
    team: { perWriter: 1_000, repeats: 3, events: 100_000 },
  },
  quick: {
    hook: { runs: 8, warmup: 2 },
    agents: { runs: 4, warmup: 1 },
    verifier: { runs: 50, warmup: 10 },
    sdk: { runs: 50, warmup: 10 },
    approval: { runs: 8, warmup: 2 },
    teamApprovals: { runs: 8, warmup: 2 },
    notify: { runs: 8, warmup: 2 },
    audit: { events: 20_000, repeats: 2, perWriter: 100, parallelSizes: [10_000, 20_000] },
    pty: { mb: 20, keys: 20, rounds: 2, floodMb: 20 },
    sandbox: { runs: 20, warmup: 3 },
    scale: { runs: 3, allowlist: [1, 1000], worktree: [1_000], audit: [10_000], approvals: [1, 20], waitSeconds: 10 },
    team: { perWriter: 1_000, repeats: 2, events: 20_000 },
  },
  // Proves the suite runs end to end and reports every metric (npm test runs it): the fewest
  // samples and smallest sizes each group accepts. Its numbers are not worth reading.
  smoke: {
    hook: { runs: 2, warmup: 1 },
    agents: { runs: 1, warmup: 0 },
    verifier: { runs: 10, warmup: 2 },
    sdk: { runs: 10, warmup: 2 },
    approval: { runs: 2, warmup: 1 },
    teamApprovals: { runs: 2, warmup: 1 },
    notify: { runs: 2, warmup: 1 },
    audit: { events: 5_000, repeats: 1, perWriter: 50, parallelSizes: [5_000, 10_000] },
    pty: { mb: 5, keys: 5, rounds: 1, floodMb: 5 },
    sandbox: { runs: 5, warmup: 1 },
    scale: { runs: 1, allowlist: [1, 1000], worktree: [1_000], audit: [10_000], approvals: [1, 20], waitSeconds: 2 },
    team: { perWriter: 100, repeats: 1, events: 5_000 },
  },
};

const GROUPS = {
  hook: (o, log) => hookBench({ ...o.hook, log }),
  agents: (o, log) => agentsBench({ ...o.agents, log }),
  verifier: (o, log) => verifierBench({ ...o.verifier, log }),
  sdk: (o, log) => sdkBench({ ...o.sdk, log }),
  approval: (o, log) => approvalBench({ ...o.approval, log }),
  'team-approvals': (o, log) => teamApprovalBench({ ...o.teamApprovals, log }),
  notify: (o, log) => notifyBench({ ...o.notify, log }),
  audit: (o, log) => auditBench({ ...o.audit, log }),
  pty: (o, log) => ptyBench({ ...o.pty, log }),
  sandbox: (o, log) => sandboxBench({ ...o.sandbox, log }),
  scale: (o, log) => scaleBench({ ...o.scale, log }),
  team: (o, log) => teamBench({ ...o.team, log }),
};

/** Every metric name a full run reports, per group (a group that crashes reports them as errors). */
const METRIC_NAMES = {
  hook: [
    'hook.baseline.node_e0',
    'hook.cold.pretooluse_allow',
    'hook.cold.pretooluse_block',
    'hook.cold.stop',
    'hook.cold.stop_check_alone',
    'hook.cold.stop_excluding_checks',
    'hook.warm.pretooluse_allow',
    'hook.warm.pretooluse_block',
    'hook.warm.stop',
    'peer.gatehouse.pretooluse_bash',
    'peer.cc_safety_net.pretooluse_bash',
  ],
  agents: AGENT_METRIC_NAMES,
  verifier: ['verifier.baseline.read_parse_transcript', 'verifier.chain.stop'],
  sdk: ['sdk.pretooluse_allow', 'sdk.pretooluse_block'],
  approval: ['approval.round_trip', 'approval.round_trip_warm'],
  'team-approvals': TEAM_APPROVAL_METRICS,
  notify: Object.values(NOTIFY_METRICS),
  audit: ['audit.append.1_writer', 'audit.append.8_writers', 'audit.append.in_process', 'audit.verify'],
  pty: ['pty.direct_read', 'pty.ws_throughput', 'pty.keystroke_echo', 'pty.stalled_viewer_retained', 'pty.stalled_viewer_dropped'],
  sandbox: Object.values(SANDBOX_METRICS),
  team: Object.values(TEAM_METRICS),
};

const USAGE = `usage: node bench/run.mjs [--quick | --smoke] [--out FILE] [--plots DIR] [--only GROUP[,GROUP…]] [--runs N] [--events N] [--mb N] [--keys N] [--worktree-sizes N[,N…]]
groups: ${Object.keys(GROUPS).join(', ')}
  --quick     fewer runs and smaller sizes (same metrics)
  --smoke     the fewest runs and smallest sizes: proves every metric is reported (npm test runs it), measures nothing worth reading
  --out FILE  where to write the JSON (default bench/results.json; with --only, none unless given)
  --plots DIR where to write the scale curves as SVG (default docs/img for a full run of every group; otherwise none unless given)
  --runs N    hook rounds, approval and notification round trips and sandbox rounds; --events N audit verify log size; --mb N PTY flood size; --keys N keystrokes
  --worktree-sizes N,N  the worktree sizes of the scale group's Stop curves (cold and warm), e.g. 1000,10000,50000 with --quick`;

/** Parses the command line; throws a usage error. */
function parseArgs(argv) {
  const opts = { mode: 'full', out: null, plots: null, only: null, overrides: {} };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value\n${USAGE}`);
      return v;
    };
    const count = () => {
      const n = Number(value());
      if (!Number.isInteger(n) || n < 1) throw new Error(`${a} needs a positive whole number\n${USAGE}`);
      return n;
    };
    if (a === '--quick' || a === '--smoke') {
      if (opts.mode !== 'full' && opts.mode !== a.slice(2)) throw new Error(`choose one of --quick and --smoke\n${USAGE}`);
      opts.mode = a.slice(2);
    } else if (a === '--out') opts.out = value();
    else if (a === '--plots') opts.plots = value();
    else if (a === '--only') opts.only = value().split(',');
    else if (a === '--runs') opts.overrides.runs = count();
    else if (a === '--events') opts.overrides.events = count();
    else if (a === '--mb') opts.overrides.mb = count();
    else if (a === '--keys') opts.overrides.keys = count();
    else if (a === '--worktree-sizes') {
      const sizes = value().split(',').map(Number);
      if (!sizes.every((n) => Number.isInteger(n) && n > 0)) throw new Error(`${a} needs positive whole numbers, comma-separated\n${USAGE}`);
      opts.overrides.worktreeSizes = sizes;
    } else if (a === '-h' || a === '--help') throw Object.assign(new Error(USAGE), { help: true });
    else throw new Error(`unknown argument ${a}\n${USAGE}`);
  }
  for (const g of opts.only ?? []) if (!GROUPS[g]) throw new Error(`unknown group ${g}\n${USAGE}`);
  return opts;
}

function machine() {
  const c = cpus();
  return { cpu_model: c[0]?.model ?? 'unknown', cpu_count: c.length, total_memory_bytes: totalmem(), platform: platform(), kernel_release: release() };
}

function commit() {
  const head = spawnSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' });
  if (head.status !== 0) return null;
  const dirty = spawnSync('git', ['status', '--porcelain'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim() !== '';
  return { head: head.stdout.trim(), dirty };
}

/** Writes `value` as JSON to `file` atomically: a temp file in the same folder, then a rename. */
function writeJsonAtomic(file, value) {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = join(dirname(file), `.${process.pid}-${Date.now()}.tmp`);
  try {
    writeFileSync(tmp, `${JSON.stringify(value, null, 2)}\n`);
    renameSync(tmp, file);
  } finally {
    rmSync(tmp, { force: true });
  }
}

/** Runs the suite; returns the results object. */
async function runSuite(argv) {
  const opts = parseArgs(argv);
  if (!existsSync(CLI)) throw new Error('dist/ is not built: run `npm run build` first (or use `npm run bench`)');
  const mode = opts.mode;
  const o = JSON.parse(JSON.stringify(MODES[mode]));
  if (opts.overrides.runs) o.hook.runs = o.approval.runs = o.teamApprovals.runs = o.notify.runs = o.sandbox.runs = o.scale.runs = opts.overrides.runs;
  if (opts.overrides.events) o.audit.events = opts.overrides.events;
  if (opts.overrides.mb) o.pty.mb = opts.overrides.mb;
  if (opts.overrides.keys) o.pty.keys = opts.overrides.keys;
  if (opts.overrides.worktreeSizes) o.scale.worktree = opts.overrides.worktreeSizes;
  const groups = opts.only ?? Object.keys(GROUPS);
  const started = Date.now();
  const log = (line) => process.stderr.write(`[bench +${((Date.now() - started) / 1000).toFixed(0)}s] ${line}\n`);
  log(`mode ${mode}, node ${process.version}, groups: ${groups.join(', ')}`);

  const loadBefore = loadavg();
  const raw = [];
  const seconds = {};
  try {
    for (const g of groups) {
      const t0 = Date.now();
      log(`${g}…`);
      try {
        raw.push(...(await GROUPS[g](o, log)));
      } catch (err) {
        log(`${g} failed: ${err.stack ?? err}`);
        for (const name of g === 'scale' ? scaleMetricNames(o.scale) : METRIC_NAMES[g]) raw.push(failed(name, '', err));
      }
      seconds[g] = (Date.now() - t0) / 1000;
      log(`${g} done in ${seconds[g].toFixed(1)} s`);
      // Nothing this group started may run on into the next one's measurements.
      reap();
    }
  } finally {
    cleanup();
  }
  const metrics = finish(raw);
  const results = {
    date: new Date(started).toISOString(),
    mode,
    node: process.version,
    machine: machine(),
    // 1/5/15-minute load averages when the run started and ended: how busy the shared machine was.
    load_average: { start: loadBefore.map((x) => Number(x.toFixed(2))), end: loadavg().map((x) => Number(x.toFixed(2))) },
    commit: commit(),
    settings: Object.fromEntries(groups.map((g) => [g, o[g]])),
    duration_s: { total: (Date.now() - started) / 1000, ...seconds },
    metrics,
  };
  process.stdout.write(
    `\nGatehouse benchmarks (${mode}, node ${process.version}, ${results.machine.cpu_count}× ${results.machine.cpu_model}, load ${results.load_average.start[0]} → ${results.load_average.end[0]}; medians; ratios against a baseline measured in the same run)\n\n`,
  );
  process.stdout.write(`${table(metrics)}\n\n`);
  for (const m of metrics) if (m.note) process.stdout.write(`  ${m.name}: ${m.note}\n`);
  const errors = metrics.filter((m) => m.error !== undefined).length;
  process.stdout.write(`\n${metrics.length} metrics, ${errors} could not be measured; took ${results.duration_s.total.toFixed(0)} s. Benchmarks are not pass/fail: the machine is shared and noisy.\n`);
  const plots = opts.plots ?? (opts.only || mode !== 'full' ? null : join(ROOT, 'docs', 'img'));
  if (plots && groups.includes('scale')) for (const f of writeCurves(resolve(plots), curves(metrics, o.scale))) process.stdout.write(`plot: ${f}\n`);
  const out = opts.out ?? (opts.only ? null : join(ROOT, 'bench', 'results.json'));
  if (out) {
    writeJsonAtomic(resolve(out), results);
    process.stdout.write(`results: ${resolve(out)}\n`);
  }
  return results;
}

/** The command-line entry: runs the suite; a usage or setup error exits 2 with its message. */
export async function main(argv) {
  try {
    await runSuite(argv);
    // Done: nothing the benchmarks left behind (a socket, a timer) may keep the process up.
    process.exit(0);
  } catch (err) {
    process.stderr.write(`${err.help ? err.message : `bench: ${err.message}`}\n`);
    process.exit(err.help ? 0 : 2);
  }
}
