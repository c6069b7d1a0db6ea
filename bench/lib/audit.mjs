// Audit log throughput: appends/s with 1 and with 8 concurrent writer processes (process
// start included, as every hook call pays it), and `verifyAudit` events/s on a log of
// `events` events with a signed checkpoint every 10,000.
import { spawn } from 'node:child_process';
import { statSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { metric } from './stats.mjs';
import { LIB_URL, NODE, tempDir, track } from './common.mjs';

const AUDIT_METRICS = { one: 'audit.append.1_writer', eight: 'audit.append.8_writers', inProcess: 'audit.append.in_process', verify: 'audit.verify' };

/** The event every audit benchmark appends: a refused write, as a hook logs one. */
export const AUDIT_EVENT = (i) => ({
  type: 'gate_decision',
  actor: 'system:bench',
  session_id: 's',
  data: { event: 'pre_tool', tool: 'Write', targets: [`/x/${i}`], decision: 'block', rule: 'write.not_allowed', input_digest: 'a'.repeat(64) },
});

/**
 * Grows `auditLog` from `from` to `to` events (AUDIT_EVENT), a signed checkpoint at every 10,000th, as
 * fast as the log allows: one hold of the lock per 10,000 events (`transact`), not one per event. For
 * the logs a benchmark reads, not for timing appends: the same lines and checkpoints either way.
 */
export function fillAuditLog(auditLog, key, from, to) {
  for (let start = from; start < to;) {
    const end = Math.min(to, (Math.floor(start / 10_000) + 1) * 10_000);
    auditLog.transact((append) => {
      for (let i = start; i < end; i++) append(AUDIT_EVENT(i));
    });
    if (end % 10_000 === 0) auditLog.checkpoint(key);
    start = end;
  }
}

export async function auditBench({ events, repeats, perWriter, parallelSizes, log }) {
  const PER_WRITER = perWriter;
  const { AuditLog, verifyAudit, verifyAuditParallel, verifyThreads, loadOrCreateKey } = await import(LIB_URL);
  const base = tempDir('gh-bench-audit-');
  const child = join(base, 'writer.mjs');
  writeFileSync(
    child,
    `const { AuditLog } = await import(${JSON.stringify(LIB_URL)});
const log = new AuditLog(process.argv[2]);
for (let i = 0; i < ${PER_WRITER}; i++) log.append({ type: 'gate_decision', actor: 'system:bench', session_id: 's', data: { event: 'pre_tool', tool: 'Write', targets: ['/x/' + i], decision: 'block', rule: 'write.not_allowed', input_digest: 'a'.repeat(64) } });
`,
  );

  let runNo = 0;
  const writers = async (n) => {
    const dir = join(base, `w${n}-${runNo++}`);
    const t0 = process.hrtime.bigint();
    await Promise.all(
      Array.from(
        { length: n },
        () => new Promise((res, rej) => track(spawn(NODE, [child, dir], { stdio: ['ignore', 'ignore', 'inherit'] })).on('exit', (c) => (c === 0 ? res() : rej(new Error(`audit writer exited ${c}`))))),
      ),
    );
    const s = Number(process.hrtime.bigint() - t0) / 1e9;
    // Every append landed and the chain is intact, whatever the interleaving.
    const report = verifyAudit(dir, []);
    if (!report.ok || report.events !== n * PER_WRITER) throw new Error(`after ${n} writers: ${report.events} events, ${report.problems?.[0] ?? 'ok'}`);
    return (n * PER_WRITER) / s;
  };
  const one = [];
  const eight = [];
  // Alternated, so that machine drift hits both alike.
  for (let r = 0; r < repeats; r++) {
    one.push(await writers(1));
    eight.push(await writers(8));
  }
  log(`audit: writers done, building a ${events.toLocaleString('en-US')}-event log`);

  const vdir = join(base, 'verify');
  const auditLog = new AuditLog(vdir);
  const key = loadOrCreateKey(base);
  // Building it times the append inside a running process too: the mean of each batch of 1,000.
  const perAppend = [];
  let t0 = process.hrtime.bigint();
  for (let i = 0; i < events; i++) {
    auditLog.append(AUDIT_EVENT(i));
    if ((i + 1) % 1_000 === 0) {
      perAppend.push(Number(process.hrtime.bigint() - t0) / 1e6 / 1_000);
      if ((i + 1) % 10_000 === 0) auditLog.checkpoint(key);
      t0 = process.hrtime.bigint();
    }
  }
  const rates = [];
  for (let r = 0; r < 3; r++) {
    const t1 = process.hrtime.bigint();
    const report = verifyAudit(vdir, [key.publicKey]);
    const s = Number(process.hrtime.bigint() - t1) / 1e9;
    if (!report.ok || report.events !== events) throw new Error(`verify failed: ${report.problems?.[0] ?? `${report.events} events`}`);
    rates.push(report.events / s);
  }
  // The parallel verify on logs of each size (the `events` log is reused for its size), with the
  // threads it used and the machine's cores in the note.
  const cores = availableParallelism();
  const parallel = [];
  for (const size of [...new Set([...(parallelSizes ?? []), events])].sort((a, b) => a - b)) {
    let dir = vdir;
    if (size !== events) {
      dir = join(base, `verify-${size}`);
      fillAuditLog(new AuditLog(dir), key, 0, size);
      log(`audit: built a ${size.toLocaleString('en-US')}-event log`);
    }
    const threads = verifyThreads(statSync(join(dir, 'log.jsonl')).size);
    const prates = [];
    for (let r = 0; r < 3; r++) {
      const t1 = process.hrtime.bigint();
      const report = await verifyAuditParallel(dir, [key.publicKey]);
      const s = Number(process.hrtime.bigint() - t1) / 1e9;
      if (!report.ok || report.events !== size) throw new Error(`parallel verify failed: ${report.problems?.[0] ?? `${report.events} events`}`);
      prates.push(report.events / s);
    }
    parallel.push(
      metric(`audit.verify_parallel.${size}`, 'events/s', prates, {
        targetChecks: [{ on: 'median', op: '>=', value: cores >= 16 ? 1_000_000 : 300_000 }],
        note: `verifyAuditParallel on ${size.toLocaleString('en-US')} events: ${threads} worker thread${threads === 1 ? ' (a log this small verifies serially)' : 's'}, ${cores} cores; target ≥ 300,000/s on 2 cores, ≥ 1,000,000/s on 16`,
      }),
    );
  }
  return [
    ...parallel,
    metric(AUDIT_METRICS.one, 'appends/s', one, { note: `${PER_WRITER} appends by one new process, process start included` }),
    metric(AUDIT_METRICS.eight, 'appends/s', eight, { baselineOf: AUDIT_METRICS.one, note: `8 processes × ${PER_WRITER} appends at once; ratio vs one writer` }),
    metric(AUDIT_METRICS.inProcess, 'ms', perAppend, {
      targetChecks: [{ on: 'median', op: '<', value: 5 }],
      note: 'one append inside a running process (mean of each batch of 1,000, lock and write included)',
    }),
    metric(AUDIT_METRICS.verify, 'events/s', rates, {
      targetChecks: [{ on: 'median', op: '>=', value: 100_000 }],
      note: `verifyAudit (hashes, Merkle root, checkpoint signatures) on ${events.toLocaleString('en-US')} events`,
    }),
  ];
}
