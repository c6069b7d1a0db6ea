// Audit log throughput, measured in one run: appends/s with 1 and with 8 concurrent writer
// processes, and `verifyAudit` events/s on a 100,000-event log. Usage: node bench/audit.mjs [--events N]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const lib = pathToFileURL(resolve('dist/index.js')).href;
const { AuditLog, verifyAudit, loadOrCreateKey } = await import(lib);
const eventsArg = process.argv.indexOf('--events');
const VERIFY_EVENTS = eventsArg > 0 ? Number(process.argv[eventsArg + 1]) : 100_000;
const PER_WRITER = 500;

const base = mkdtempSync(join(tmpdir(), 'gh-bench-audit-'));
const child = join(base, 'writer.mjs');
writeFileSync(child, `const { AuditLog } = await import(${JSON.stringify(lib)});
const log = new AuditLog(process.argv[2]);
for (let i = 0; i < ${PER_WRITER}; i++) log.append({ type: 'gate_decision', actor: 'system:bench', session_id: 's', data: { event: 'pre_tool', tool: 'Write', targets: ['/x/' + i], decision: 'block', rule: 'write.not_allowed', input_digest: 'a'.repeat(64) } });
`);

async function writers(n) {
  const dir = join(base, `w${n}`);
  const t0 = process.hrtime.bigint();
  await Promise.all(Array.from({ length: n }, () => new Promise((res, rej) => spawn(process.execPath, [child, dir], { stdio: 'inherit' }).on('exit', (c) => (c === 0 ? res() : rej(new Error(`writer exit ${c}`)))))));
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  return (n * PER_WRITER) / s;
}

const one = await writers(1);
const eight = await writers(8);

const vdir = join(base, 'verify');
const log = new AuditLog(vdir);
const key = loadOrCreateKey(base);
for (let i = 0; i < VERIFY_EVENTS; i++) {
  log.append({ type: 'gate_decision', actor: 'system:bench', session_id: 's', data: { event: 'pre_tool', tool: 'Write', targets: [`/x/${i}`], decision: 'block', rule: 'write.not_allowed', input_digest: 'a'.repeat(64) } });
  if ((i + 1) % 10_000 === 0) log.checkpoint(key);
}
const runs = [];
for (let r = 0; r < 3; r++) {
  const t0 = process.hrtime.bigint();
  const report = verifyAudit(vdir, [key.publicKey]);
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  if (!report.ok) throw new Error(`verify failed: ${report.problems[0]}`);
  runs.push(report.events / s);
}
runs.sort((a, b) => a - b);
console.log(`audit: appends/s, 1 writer process  ${one.toFixed(0)}`);
console.log(`audit: appends/s, 8 writer processes ${eight.toFixed(0)} (${(eight / one).toFixed(2)}x of one writer)`);
console.log(`audit: verify events/s on ${VERIFY_EVENTS} events, median of 3: ${runs[1].toFixed(0)} (target >= 100000)`);
rmSync(base, { recursive: true, force: true });
