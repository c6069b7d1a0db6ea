// The team store on PostgreSQL: events/s that 8 machine processes forward into one team audit log
// (against the file store's 8-writer append rate measured in the same run), and verify from the rows.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { LIB_URL, NODE, tempDir, track } from './common.mjs';
import { startBenchPostgres } from './postgres.mjs';
import { metric } from './stats.mjs';

export const TEAM_METRICS = { file: 'team.file_append_8_writers', append: 'team.audit_append_8_writers', verify: 'team.audit_verify', verifySerial: 'team.audit_verify_one_thread' };

/** The event every writer appends (as source text for the file-store writer process). */
const EVENT_SOURCE = `{ type: 'gate_decision', actor: 'system:bench', session_id: 's', data: { event: 'pre_tool', tool: 'Write', targets: ['/x/' + i], decision: 'block', rule: 'write.not_allowed', input_digest: 'a'.repeat(64) } }`;
const event = (i) => ({
  type: 'gate_decision',
  actor: 'system:bench',
  session_id: 's',
  data: { event: 'pre_tool', tool: 'Write', targets: [`/x/${i}`], decision: 'block', rule: 'write.not_allowed', input_digest: 'a'.repeat(64) },
});

/** A local log of `n` events in `state`, as a machine's hooks would have left it. */
function localLog(lib, state, n) {
  mkdirSync(join(state, 'audit'), { recursive: true });
  const l = new lib.AuditLog(join(state, 'audit'));
  for (let i = 0; i < n; i++) l.append(event(i));
}

function runAll(argvs, env = {}) {
  return Promise.all(
    argvs.map(
      (argv) =>
        new Promise((res, rej) => {
          let err = '';
          const c = track(spawn(NODE, argv, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...argv.env, ...env } }));
          c.stderr.on('data', (d) => (err += d));
          c.on('exit', (code) => (code === 0 ? res() : rej(new Error(`writer exited ${code}: ${err.trim().slice(-400)}`))));
        }),
    ),
  );
}

export async function teamBench({ perWriter, repeats, events, log }) {
  const lib = await import(LIB_URL);
  const base = tempDir('gh-bench-team-');
  const fileWriter = join(base, 'file-writer.mjs');
  writeFileSync(
    fileWriter,
    `const { AuditLog } = await import(${JSON.stringify(LIB_URL)});\nconst log = new AuditLog(process.argv[2]);\nfor (let i = 0; i < ${perWriter}; i++) log.append(${EVENT_SOURCE});\n`,
  );
  // One machine's long-lived process: opens the store, forwards its local log, flushes, exits.
  const linkWriter = join(base, 'link-writer.mjs');
  writeFileSync(
    linkWriter,
    `const { openStore, thisMachine, startAuditForwardingWith } = await import(${JSON.stringify(LIB_URL)});
const [state, project] = process.argv.slice(2);
const o = await openStore({ kind: 'postgres', url: process.env.GH_BENCH_PG_URL, passwordEnv: process.env.GH_BENCH_PG_PASSWORD_ENV }, { max: 2 });
if (!o.ok) throw new Error(o.reason);
const part = await startAuditForwardingWith({ tickMs: 60000 })({ store: o.value, machine: thisMachine(), projectState: state, projectKey: project, worktree: state, warn: (m) => process.stderr.write(m + '\\n') });
await part.flush();
await part.stop();
await o.value.close();
`,
  );
  const pg = await startBenchPostgres();
  const spec = { kind: 'postgres', url: pg.url, passwordEnv: pg.passwordEnv };
  const opened = await lib.openStore(spec);
  if (!opened.ok) throw new Error(opened.reason);
  const store = opened.value;
  try {
    const env = { GH_BENCH_PG_URL: pg.url, GH_BENCH_PG_PASSWORD_ENV: pg.passwordEnv };
    let run = 0;
    const fileRates = [];
    const pgRates = [];
    for (let r = 0; r < repeats; r++) {
      // The file store: 8 processes appending to one project's log.
      const dir = join(base, `file-${r}`);
      let t0 = process.hrtime.bigint();
      await runAll(Array.from({ length: 8 }, () => [fileWriter, dir]));
      fileRates.push((8 * perWriter) / (Number(process.hrtime.bigint() - t0) / 1e9));
      // The team store: 8 machines (each its own state base and project), each forwarding its local log.
      const machines = [];
      for (let m = 0; m < 8; m++) {
        const home = join(base, `pg-${r}-${m}`);
        const state = join(home, 'projects', `p${run++}`);
        localLog(lib, state, perWriter);
        machines.push(Object.assign([linkWriter, state, `p-${r}-${m}`], { env: { GATEHOUSE_HOME: home } }));
      }
      t0 = process.hrtime.bigint();
      await runAll(machines, env);
      pgRates.push((8 * perWriter) / (Number(process.hrtime.bigint() - t0) / 1e9));
    }
    log(`team: writers done; building a ${events.toLocaleString('en-US')}-event team log`);
    // A large team log for verify: one more machine forwards a local log of `events` events.
    const home = join(base, 'verify');
    const state = join(home, 'projects', 'verify');
    localLog(lib, state, events);
    await runAll([Object.assign([linkWriter, state, 'verify'], { env: { GATEHOUSE_HOME: home } })], env);
    // Verify reads a log at rest, as a team's is by the time anyone verifies it: vacuumed (which
    // sets the rows' hint bits, so the first scan does not write them) and checkpointed, so that
    // PostgreSQL's own after-work of the bulk insert above is not what the verify is timed against.
    await store.pool.query('VACUUM (ANALYZE) gh_audit_events');
    await store.pool.query('CHECKPOINT');
    const keys = [];
    for (let r = 0; r < repeats; r++) for (let m = 0; m < 8; m++) keys.push(lib.loadOrCreateKey(join(base, `pg-${r}-${m}`, 'projects', `p${r * 8 + m}`)).publicKey);
    keys.push(lib.loadOrCreateKey(state).publicKey);
    const total = 8 * perWriter * repeats + events;
    const verifyRate = async (opts) => {
      const t0 = process.hrtime.bigint();
      const report = await lib.verifyTeamAudit(store, keys, opts);
      const s = Number(process.hrtime.bigint() - t0) / 1e9;
      if (!report.ok || report.events !== total) throw new Error(`team verify: ${report.events} of ${total} events, ${report.problems[0] ?? 'ok'}`);
      return report.events / s;
    };
    // Alternated, so that both see the same machine load.
    const verifyRates = [];
    const serialRates = [];
    for (let r = 0; r < 3; r++) {
      verifyRates.push(await verifyRate({}));
      serialRates.push(await verifyRate({ threads: 1 }));
    }
    const cores = availableParallelism();
    return [
      metric(TEAM_METRICS.file, 'events/s', fileRates, { note: `file store: 8 processes × ${perWriter} appends into one log at once, process start included` }),
      metric(TEAM_METRICS.append, 'events/s', pgRates, {
        baselineOf: TEAM_METRICS.file,
        targetChecks: [{ on: 'ratio', op: '>=', value: 1 }],
        note: `team store: 8 machine processes each forward ${perWriter} local events into one PostgreSQL team log (start, connect, batches of 500, checkpoint, exit); fsync on; target ≥ the file store's 8-writer rate`,
      }),
      metric(TEAM_METRICS.verify, 'events/s', verifyRates, {
        targetChecks: [{ on: 'median', op: '>=', value: 100_000 }],
        note: `verifyTeamAudit on ${total.toLocaleString('en-US')} rows at rest, vacuumed and checkpointed after the writes (hashes, chain, origins, Merkle roots, checkpoint signatures): pages of 4,096 rows checked on ${Math.min(cores, 16)} worker threads (one per core; ${cores} cores here), with PostgreSQL on the same cores`,
      }),
      metric(TEAM_METRICS.verifySerial, 'events/s', serialRates, { note: 'the same verify on one thread (threads: 1), keyset pages of 10,000: what the workers add' }),
    ];
  } finally {
    await store.close();
    pg.stop();
  }
}
