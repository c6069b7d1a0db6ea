// Cross-machine approval round trip through the team store: machine B runs its approval relay
// and a hook-style waiter (its own process, its own GATEHOUSE_HOME and state folder, no database
// password); machine A answers through the store's API. Timed: from A's resolve() call until B's
// waiter wakes with the answer (LISTEN/NOTIFY → relay → B's local queue → the waiter's watch).
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { ROOT, sleep, tempDir, track, within } from './common.mjs';
import { startBenchPostgres } from './postgres.mjs';
import { failed, metric } from './stats.mjs';

const NAME = 'team.approval_round_trip_cross_machine';
const TARGETS = [{ on: 'median', op: '<', value: 50 }];
/** How many requests are pending in the store while one is answered. */
const PENDING_LEVELS = [1, 10, 100];
const RESOLVER = { id: 'token:bench', auth: 'scoped-token', grant: 'approvals' };

/**
 * The machine program the tests use (test/runtime/store/fixtures/approval-machine.ts), bundled to
 * one file. esbuild (a dev dependency) loads only here, so the other groups run without it.
 */
async function bundleMachine(dir) {
  const { buildSync } = await import('esbuild');
  const out = join(dir, 'approval-machine.mjs');
  buildSync({
    entryPoints: [join(ROOT, 'test/runtime/store/fixtures/approval-machine.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile: out,
    logLevel: 'error',
    external: ['pg-native'],
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  });
  return out;
}

/** One machine process: JSON commands in, JSON lines out. */
function machine(script, role, dirs, pg) {
  const env = { ...process.env, GATEHOUSE_HOME: dirs.home };
  if (role === 'hook') delete env[pg.passwordEnv];
  const args = [script, role, dirs.state, ...(role === 'hook' ? [] : [pg.url, pg.passwordEnv])];
  const child = track(spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'pipe'], env }));
  const lines = [];
  const waiters = [];
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  createInterface({ input: child.stdout }).on('line', (text) => {
    const line = JSON.parse(text);
    lines.push(line);
    for (const w of [...waiters]) {
      if (!w.match(line)) continue;
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve(line);
    }
  });
  const next = (match, after = 0) => {
    const seen = lines.slice(after).find(match);
    if (seen) return Promise.resolve(seen);
    return within(new Promise((resolve) => waiters.push({ match, resolve })), 30_000, () => {
      throw new Error(`machine ${role}: no expected line within 30 s; stderr: ${stderr.slice(0, 300)}`);
    });
  };
  const ask = (command, match) => {
    const mark = lines.length;
    child.stdin.write(`${JSON.stringify(command)}\n`);
    return next(match, mark);
  };
  return { child, next, ask, ready: next((l) => 'ready' in l || 'error' in l) };
}

function dirsFor(base, name) {
  const d = { home: join(base, name, 'home'), state: join(base, name, 'state') };
  mkdirSync(d.home, { recursive: true });
  mkdirSync(d.state, { recursive: true });
  return d;
}

/** The metric of a round trip with `pending` requests in the queue (the one answered among them). */
const nameAt = (pending) => (pending === 1 ? NAME : `team.approval_round_trip_${pending}_pending`);
export const TEAM_APPROVAL_METRICS = PENDING_LEVELS.map(nameAt);

/** `runs` timed round trips (after `warmup`): machine B files a request, A answers it, B's waiter wakes. */
async function roundTrips({ hook, resolver }, { runs, warmup, log, label }) {
  const samples = [];
  const resolveCalls = [];
  for (let i = 0; i < warmup + runs; i++) {
    const filed = await hook.ask({ op: 'enqueue', input: { session_id: 'bench', agent: 'claude', tool: 'Bash', summary: `npm publish (${i})`, ttlSeconds: 120 } }, (l) => 'filed' in l);
    // Until the relay has forwarded it: then let the waiter settle, as while a person reads it.
    for (;;) {
      const got = await resolver.ask({ op: 'get', id: filed.filed }, (l) => 'approval' in l);
      if (got.approval !== null) break;
      await sleep(10);
    }
    await sleep(100 + ((i * 7) % 50));
    const woke = hook.next((l) => l.woke === filed.filed);
    const r = await resolver.ask({ op: 'resolve', id: filed.filed, nonce: filed.nonce, decision: 'allow', principal: RESOLVER }, (l) => 'result' in l);
    if (!r.result.ok) throw new Error(`resolve refused: ${r.result.error.message}`);
    const w = await woke;
    if (w.resolution?.decision !== 'allow') throw new Error(`the waiter woke with ${JSON.stringify(w.resolution ?? w.error)}`);
    if (i >= warmup) {
      samples.push(w.at - r.t0);
      resolveCalls.push(r.t1 - r.t0);
    }
    if ((i + 1) % 10 === 0) log(`team approval round trip (${label}): ${i + 1}/${warmup + runs}`);
  }
  const mid = [...resolveCalls].sort((x, y) => x - y)[Math.floor(resolveCalls.length / 2)];
  log(`team approval round trip (${label}): the resolve() call itself took ${mid.toFixed(1)} ms (median) of it`);
  return samples;
}

/** Files requests that nobody answers until the store holds `count` of them, each waited on by machine B. */
async function fillTo(count, { hook, resolver }, filled) {
  for (; filled < count; filled++) {
    await hook.ask({ op: 'enqueue', input: { session_id: 'bench-load', agent: 'claude', tool: 'Bash', summary: `left pending (${filled})`, ttlSeconds: 3_600 } }, (l) => 'filed' in l);
  }
  for (;;) {
    const listed = await resolver.ask({ op: 'list', filter: { session: 'bench-load' } }, (l) => 'pending' in l);
    if (listed.pending.length >= count) return filled;
    await sleep(20);
  }
}

export async function teamApprovalBench({ runs, warmup, log }) {
  let pg = null;
  const procs = [];
  const results = [];
  try {
    pg = await startBenchPostgres();
    const base = tempDir('gh-bench-team-');
    const script = await bundleMachine(base);
    const [b, a] = [dirsFor(base, 'b'), dirsFor(base, 'a')];
    const relay = machine(script, 'relay', b, pg);
    const hook = machine(script, 'hook', b, pg);
    const resolver = machine(script, 'store', a, pg);
    procs.push(relay, hook, resolver);
    for (const m of procs) {
      const r = await m.ready;
      if ('error' in r) throw new Error(`a machine did not start: ${r.error}`);
    }
    let filled = 0;
    for (const pending of PENDING_LEVELS) {
      // The others stay pending, each waited on in machine B's hook process, while one is answered.
      filled = await fillTo(pending - 1, { hook, resolver }, filled);
      const samples = await roundTrips({ hook, resolver }, { runs, warmup, log, label: `${pending} pending` });
      results.push(
        metric(nameAt(pending), 'ms', samples, {
          targetChecks: TARGETS,
          note:
            pending === 1
              ? "machine A's PgApprovalQueue.resolve() called → machine B's waiting hook-style process woke (B: relay + waiter processes, own state folders; loopback PostgreSQL)"
              : `the same, with ${pending - 1} other requests of machine B pending in the store (each waited on in B's hook process) while one is answered`,
        }),
      );
    }
    return results;
  } catch (err) {
    return PENDING_LEVELS.map((p, i) => results[i] ?? failed(nameAt(p), 'ms', err, { targetChecks: TARGETS }));
  } finally {
    for (const m of procs) m.child.kill('SIGKILL');
    pg?.stop();
  }
}
