// PTY benchmarks, each against a baseline taken in the same run: throughput of a process
// writing N MB through the PTY to a WebSocket client vs reading the same PTY directly in
// process; keystroke → echo latency over the WebSocket; memory the server retains while a
// viewer is stalled during a flood. They run in a child `node --expose-gc` so that retained
// memory is measured after a full GC (heapUsed + arrayBuffers), not read off RSS, which
// mostly shows V8's young generation growing under the allocation rate.
// Child usage: node --expose-gc bench/lib/pty.mjs --mb N --keys N --rounds N --flood-mb N
import { spawn } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { failed, metric } from './stats.mjs';
import { LIB_URL, NODE, ROOT, sleep, tempDir, track, within } from './common.mjs';

const PTY_METRICS = {
  direct: 'pty.direct_read',
  ws: 'pty.ws_throughput',
  directCpu: 'pty.direct_cpu_per_mb',
  wsCpu: 'pty.ws_cpu_per_mb',
  keys: 'pty.keystroke_echo',
  retained: 'pty.stalled_viewer_retained',
  dropped: 'pty.stalled_viewer_dropped',
};

/**
 * A child that writes `bytes` of `x` and then keeps the terminal open for {@link WRITER_LINGER_MS}:
 * node-pty can lose the last chunk still in the terminal when the child exits at once.
 */
const writerArgs = (bytes) => [
  '-e',
  `const b=Buffer.alloc(65536,120);let n=${bytes};function w(){while(n>0){n-=b.length;if(!process.stdout.write(b)){process.stdout.once('drain',w);return}}setTimeout(()=>{},${WRITER_LINGER_MS})}w()`,
];
/** How long the writer stays after its last write; the direct read is timed to its last byte, not to the exit. */
const WRITER_LINGER_MS = 300;

/** How long the direct read waits, after the writer exits, for output still on its way. */
const EXIT_DRAIN_MS = 5_000;

/** User + system CPU of this process since `since` (a `process.cpuUsage()`), in ms. */
const cpuMsSince = (since) => {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1000;
};

/** Direct: node-pty read in this process, nothing else. Returns MB/s and this process's CPU ms per MB. */
async function direct(pty, root, bytes) {
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  let got = 0;
  let last = null;
  await new Promise((res) => {
    const p = pty.spawn(NODE, writerArgs(bytes), { cols: 200, rows: 50, cwd: root, env: { ...process.env, TERM: 'xterm-256color' } });
    p.onData((d) => {
      got += Buffer.byteLength(d);
      if (last === null && got >= bytes) last = process.hrtime.bigint();
    });
    // The exit can arrive before the last output on a loaded machine: wait for the bytes, not a fixed delay.
    p.onExit(() => {
      const until = Date.now() + EXIT_DRAIN_MS;
      const wait = () => (got >= bytes || Date.now() > until ? res() : setTimeout(wait, 10));
      wait();
    });
  });
  if (got < bytes || last === null) throw new Error(`direct read got ${got} of ${bytes} bytes`);
  return { mbps: got / 1048576 / (Number(last - t0) / 1e9), cpuPerMb: cpuMsSince(cpu0) / (got / 1048576) };
}

function connect(WebSocket, url, accessToken) {
  const ws = new WebSocket(`ws://${url.host}/ws`, { headers: { authorization: `Bearer ${accessToken}`, origin: url.origin } });
  let id = 0;
  const pending = new Map();
  const listeners = [];
  ws.on('message', (raw) => {
    const m = JSON.parse(raw.toString());
    if (m.id !== undefined && pending.has(m.id)) {
      pending.get(m.id)(m);
      pending.delete(m.id);
    } else if (m.method === 'event') for (const l of listeners) l(m.params);
  });
  return {
    ws,
    open: new Promise((res, rej) => ws.once('open', res).once('error', rej)),
    call: (method, params) =>
      new Promise((res) => {
        const i = ++id;
        pending.set(i, res);
        ws.send(JSON.stringify({ jsonrpc: '2.0', id: i, method, params }));
      }),
    notify: (method, params) => ws.send(JSON.stringify({ jsonrpc: '2.0', method, params })),
    onEvent: (l) => listeners.push(l),
  };
}

async function child({ mb, keys, rounds, floodMb }) {
  const lib = await import(LIB_URL);
  const { default: pty } = await import('@lydell/node-pty');
  const { WebSocket } = await import('ws');
  const root = tempDir('gh-bench-pty-');
  const gateway = async () => {
    const manager = new lib.PtyManager({ projectRoot: root });
    const accessToken = 'b'.repeat(64);
    const gw = await lib.startGateway({ projectState: join(root, '.state'), host: '127.0.0.1', port: 0, accessToken, tokens: [], log: () => {}, websocket: { manager } });
    return {
      manager,
      gw,
      url: new URL(gw.url),
      accessToken,
      close: async () => {
        await gw.close();
        await manager.dispose();
      },
    };
  };
  const bytes = mb * 1048576;

  /** Through the gateway to a client process that acks as it reads, like the dashboard. */
  const throughWs = async () => {
    const g = await gateway();
    try {
      const cpu0 = process.cpuUsage();
      const out = await new Promise((res, rej) => {
        const c = track(spawn(NODE, [join(ROOT, 'bench', 'lib', 'ws-client.mjs'), g.url.href, g.accessToken, JSON.stringify(writerArgs(bytes))], { stdio: ['ignore', 'pipe', 'inherit'] }));
        let text = '';
        c.stdout.on('data', (d) => (text += d));
        c.on('exit', (code) => (code === 0 ? res(JSON.parse(text)) : rej(new Error(`the WebSocket client exited ${code}`))));
      });
      if (out.got < bytes) throw new Error(`the WebSocket client got ${out.got} of ${bytes} bytes`);
      // Noise-proof where MB/s is not: what the gateway and the client spend per MB, whatever else runs.
      return { mbps: out.mbps, cpuPerMb: (cpuMsSince(cpu0) + out.cpuMs) / (out.got / 1048576) };
    } finally {
      await g.close();
    }
  };

  /** Keystroke → echo: a `cat` with -icanon echoes each key; time from send to the echo event. */
  const keystrokes = async () => {
    const g = await gateway();
    const c = connect(WebSocket, g.url, g.accessToken);
    try {
      await c.open;
      await c.call('events.subscribe', { topics: ['pty.*'] });
      const r = await c.call('pty.spawn', { command: '/bin/sh', args: ['-c', 'stty -icanon; cat'] });
      const sid = r.result.id;
      let waiter = null;
      c.onEvent((e) => {
        if (e.topic === 'pty.output' && waiter) {
          const w = waiter;
          waiter = null;
          w();
        }
      });
      await sleep(300);
      const samples = [];
      for (let i = 0; i < keys + 5; i++) {
        const got = new Promise((res) => (waiter = res));
        const t0 = process.hrtime.bigint();
        c.notify('pty.input', { session_id: sid, data: 'x' });
        await within(got, 5_000, () => {
          throw new Error('no echo within 5 s');
        });
        if (i >= 5) samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
        await sleep(2);
      }
      return samples;
    } finally {
      c.ws.close();
      await g.close();
    }
  };

  /** A viewer that never reads while the controller reads the flood: what the server keeps for it. */
  const stalledViewer = async () => {
    const g = await gateway();
    const ctl = connect(WebSocket, g.url, g.accessToken);
    const viewer = connect(WebSocket, g.url, g.accessToken);
    try {
      await ctl.open;
      await ctl.call('events.subscribe', { topics: ['pty.*'] });
      await viewer.open;
      await viewer.call('events.subscribe', { topics: ['pty.*'] });
      const mem = () => {
        global.gc();
        global.gc();
        const m = process.memoryUsage();
        return { live: m.heapUsed + m.arrayBuffers, rss: m.rss };
      };
      const before = mem();
      let sid = '';
      let unacked = 0;
      const done = new Promise((res) =>
        ctl.onEvent((e) => {
          if (e.topic === 'pty.output') {
            unacked += Buffer.from(e.data.data, 'base64').length;
            if (unacked >= 5000) {
              ctl.notify('pty.ack', { session_id: sid, chars: unacked });
              unacked = 0;
            }
          } else if (e.topic === 'pty.exit') res();
        }),
      );
      const r = await ctl.call('pty.spawn', { command: NODE, args: writerArgs(floodMb * 1048576), cols: 200, rows: 50 });
      sid = r.result.id;
      await viewer.call('pty.attach', { session_id: sid });
      viewer.ws._socket.pause(); // the viewer stops reading
      await done;
      const after = mem(); // the viewer is still attached and still stalled
      const stats = g.gw.websocket.stats();
      const dropped = stats.connections.reduce((a, c) => a + (c.dropped ?? c.droppedFrames ?? 0), 0);
      return { retainedMb: (after.live - before.live) / 1048576, rssGrowthMb: (after.rss - before.rss) / 1048576, dropped };
    } finally {
      ctl.ws.close();
      viewer.ws.terminate();
      await g.close();
    }
  };

  const directMbps = [];
  const wsMbps = [];
  const directCpu = [];
  const wsCpu = [];
  for (let r = 0; r < rounds; r++) {
    const d = await direct(pty, root, bytes);
    directMbps.push(d.mbps);
    directCpu.push(d.cpuPerMb);
    const w = await throughWs();
    wsMbps.push(w.mbps);
    wsCpu.push(w.cpuPerMb);
  }
  const keySamples = await keystrokes();
  const stalled = await stalledViewer();
  return { directMbps, wsMbps, directCpu, wsCpu, keySamples, stalled };
}

/** Runs the PTY benchmarks in a child `node --expose-gc` and turns its report into metrics. */
/**
 * The WebSocket path is four processes' work (the PTY child, the gateway, the client, the kernel)
 * and is core-bound: ≥ 0.8× where at least 4 cores are free, ≥ 0.7× on fewer.
 */
const freeCores = () => Math.max(0, cpus().length - loadavg()[0]);
const wsTarget = () => [{ on: 'ratio', op: '>=', value: freeCores() >= 4 ? 0.8 : 0.7 }];
const coresText = () => `${cpus().length} cores, ${freeCores().toFixed(1)} free (1-minute load ${loadavg()[0].toFixed(2)})`;

export async function ptyBench({ mb, keys, rounds, floodMb, log }) {
  const args = ['--expose-gc', fileURLToPath(import.meta.url), '--mb', mb, '--keys', keys, '--rounds', rounds, '--flood-mb', floodMb].map(String);
  let report;
  try {
    report = await new Promise((res, rej) => {
      const c = track(spawn(NODE, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] }));
      let out = '';
      let err = '';
      c.stdout.on('data', (d) => (out += d));
      c.stderr.on('data', (d) => (err += d));
      const timer = setTimeout(() => c.kill('SIGKILL'), 600_000);
      c.on('exit', (code, signal) => {
        clearTimeout(timer);
        const line = out.trim().split('\n').at(-1) ?? '';
        if (code === 0 && line.startsWith('{')) res(JSON.parse(line));
        else {
          // The thrown error's own line first (a stack's last lines only say where), then the tail.
          const lines = err.trim().split('\n');
          const thrown = lines.find((l) => /^\s*(\w*Error|Uncaught)\b/.test(l)) ?? '';
          rej(new Error(`the PTY benchmark exited ${code ?? signal}: ${[thrown, ...lines.slice(-3)].filter(Boolean).join(' ')}`));
        }
      });
    });
  } catch (err) {
    log(`pty: ${err.message}`);
    return [
      failed(PTY_METRICS.direct, 'MB/s', err),
      failed(PTY_METRICS.ws, 'MB/s', err, { baselineOf: PTY_METRICS.direct, targetChecks: wsTarget() }),
      failed(PTY_METRICS.directCpu, 'ms/MB', err),
      failed(PTY_METRICS.wsCpu, 'ms/MB', err, { baselineOf: PTY_METRICS.directCpu }),
      failed(PTY_METRICS.keys, 'ms', err, { targetChecks: [{ on: 'median', op: '<', value: 5 }] }),
      failed(PTY_METRICS.retained, 'MB', err),
      failed(PTY_METRICS.dropped, 'frames', err),
    ];
  }
  const s = report.stalled;
  return [
    metric(PTY_METRICS.direct, 'MB/s', report.directMbps, { note: `${mb} MB written through a PTY, read directly in process` }),
    metric(PTY_METRICS.ws, 'MB/s', report.wsMbps, {
      baselineOf: PTY_METRICS.direct,
      targetChecks: wsTarget(),
      note: `${mb} MB through the gateway to a WebSocket client process that acks like the dashboard; ${coresText()}`,
    }),
    metric(PTY_METRICS.directCpu, 'ms/MB', report.directCpu, { note: 'CPU (user + system) of the direct reader per MB read' }),
    metric(PTY_METRICS.wsCpu, 'ms/MB', report.wsCpu, {
      baselineOf: PTY_METRICS.directCpu,
      note: 'CPU of the gateway and the WebSocket client together per MB delivered (the writer not counted, as in the direct read)',
    }),
    metric(PTY_METRICS.keys, 'ms', report.keySamples, { targetChecks: [{ on: 'median', op: '<', value: 5 }], note: 'keystroke → echo over the WebSocket (`cat` with -icanon)' }),
    metric(PTY_METRICS.retained, 'MB', [s.retainedMb], {
      note: `heapUsed+arrayBuffers after gc(), after vs before a ${floodMb} MB flood with one viewer stalled (RSS grew ${s.rssGrowthMb.toFixed(1)} MB)`,
      rss_growth_mb: s.rssGrowthMb,
    }),
    metric(PTY_METRICS.dropped, 'frames', [s.dropped], { note: 'output frames dropped for the stalled viewer (the controller got everything)' }),
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (typeof global.gc !== 'function') throw new Error('run with --expose-gc');
  const arg = (name) => Number(process.argv[process.argv.indexOf(name) + 1]);
  const report = await child({ mb: arg('--mb'), keys: arg('--keys'), rounds: arg('--rounds'), floodMb: arg('--flood-mb') });
  process.stdout.write(`\n${JSON.stringify(report)}\n`);
  process.exit(0);
}
