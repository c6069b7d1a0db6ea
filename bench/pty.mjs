// PTY benchmarks, each against a baseline taken in the same run: throughput of a process
// writing N MB through the PTY to a WebSocket client vs reading the same PTY directly in
// process; keystroke → echo latency over the WebSocket; server memory with a stalled viewer.
// Usage: node bench/pty.mjs [--mb N] [--keys N]
import { spawn } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import pty from '@lydell/node-pty';
import { WebSocket } from 'ws';

const lib = await import(pathToFileURL(resolve('dist/index.js')).href);
const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const MB = arg('--mb', 100);
const KEYS = arg('--keys', 100);
const BYTES = MB * 1024 * 1024;
const writer = ['-e', `const b=Buffer.alloc(65536,120);let n=${BYTES};function w(){while(n>0){n-=b.length;if(!process.stdout.write(b)){process.stdout.once('drain',w);return}}}w()`];

const root = realpathSync(mkdtempSync(join(tmpdir(), 'gh-bench-pty-')));
const state = join(root, '.state');

/** Direct: node-pty read in this process, nothing else. */
async function direct() {
  const t0 = process.hrtime.bigint();
  let got = 0;
  await new Promise((res) => {
    const p = pty.spawn(process.execPath, writer, { cols: 200, rows: 50, cwd: root, env: { ...process.env, TERM: 'xterm-256color' } });
    p.onData((d) => (got += Buffer.byteLength(d)));
    p.onExit(() => setTimeout(res, 50));
  });
  return { mbps: got / 1048576 / (Number(process.hrtime.bigint() - t0) / 1e9), got };
}

function connect(url, accessToken) {
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
    call: (method, params) => new Promise((res) => { const i = ++id; pending.set(i, res); ws.send(JSON.stringify({ jsonrpc: '2.0', id: i, method, params })); }),
    notify: (method, params) => ws.send(JSON.stringify({ jsonrpc: '2.0', method, params })),
    onEvent: (l) => listeners.push(l),
  };
}

async function gateway() {
  const manager = new lib.PtyManager({ projectRoot: root });
  const accessToken = 'b'.repeat(64);
  const gw = await lib.startGateway({ projectState: state, host: '127.0.0.1', port: 0, tokens: [], log: () => {}, websocket: { manager, accessToken } });
  return { manager, gw, url: new URL(gw.url), accessToken };
}

/** The WebSocket client of the throughput run, in its own process as a browser would be. */
const CLIENT = `
import { WebSocket } from 'ws';
const [url, token, args] = [process.argv[2], process.argv[3], JSON.parse(process.argv[4])];
const u = new URL(url);
const ws = new WebSocket('ws://' + u.host + '/ws', { headers: { authorization: 'Bearer ' + token, origin: u.origin } });
let got = 0, unacked = 0, sid = '', t0 = 0n;
ws.on('message', (raw) => {
  const m = JSON.parse(raw.toString());
  if (m.id === 2) { sid = m.result.id; return; }
  if (m.method !== 'event') return;
  if (m.params.topic === 'pty.output') {
    const n = Buffer.from(m.params.data.data, 'base64').length;
    got += n; unacked += n;
    if (unacked >= 5000) { ws.send(JSON.stringify({ jsonrpc: '2.0', method: 'pty.ack', params: { session_id: sid, chars: unacked } })); unacked = 0; }
  } else if (m.params.topic === 'pty.exit') {
    const s = Number(process.hrtime.bigint() - t0) / 1e9;
    process.stdout.write(JSON.stringify({ got, mbps: got / 1048576 / s }));
    ws.close();
  }
});
ws.on('open', () => {
  ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'events.subscribe', params: { topics: ['pty.*'] } }));
  t0 = process.hrtime.bigint();
  ws.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'pty.spawn', params: { command: process.execPath, args, cols: 200, rows: 50 } }));
});
`;

/** Through the gateway to a client process that acks as it reads, like the dashboard. */
async function throughWs() {
  const { manager, gw, url, accessToken } = await gateway();
  const clientFile = join(resolve('node_modules'), '.gatehouse-bench-client.mjs');
  writeFileSync(clientFile, CLIENT);
  const out = await new Promise((res, rej) => {
    const c = spawn(process.execPath, [clientFile, url.href, accessToken, JSON.stringify(writer)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let text = '';
    c.stdout.on('data', (d) => (text += d));
    c.on('exit', (code) => (code === 0 ? res(JSON.parse(text)) : rej(new Error(`client exited ${code}`))));
  });
  rmSync(clientFile, { force: true });
  await gw.close();
  await manager.dispose();
  return out;
}

/** Keystroke → echo: a `cat` in raw-ish mode echoes each key; time from send to the echo event. */
async function keystrokes() {
  const { manager, gw, url, accessToken } = await gateway();
  const c = connect(url, accessToken);
  await c.open;
  await c.call('events.subscribe', { topics: ['pty.*'] });
  const r = await c.call('pty.spawn', { command: '/bin/sh', args: ['-c', 'stty -icanon; cat'] });
  const sid = r.result.id;
  let waiter = null;
  c.onEvent((e) => { if (e.topic === 'pty.output' && waiter) { const w = waiter; waiter = null; w(); } });
  await new Promise((res) => setTimeout(res, 300));
  const samples = [];
  for (let i = 0; i < KEYS; i++) {
    const got = new Promise((res) => (waiter = res));
    const t0 = process.hrtime.bigint();
    c.notify('pty.input', { session_id: sid, data: 'x' });
    await got;
    samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
    await new Promise((res) => setTimeout(res, 2));
  }
  c.ws.close();
  await gw.close();
  await manager.dispose();
  samples.sort((a, b) => a - b);
  return { median: samples[Math.floor(samples.length / 2)], p90: samples[Math.floor(samples.length * 0.9)] };
}

/** A viewer that never reads while the controller reads 3/4 of the flood: server memory stays flat. */
async function stalledViewer() {
  const { manager, gw, url, accessToken } = await gateway();
  const ctl = connect(url, accessToken);
  await ctl.open;
  await ctl.call('events.subscribe', { topics: ['pty.*'] });
  const viewer = connect(url, accessToken);
  await viewer.open;
  await viewer.call('events.subscribe', { topics: ['pty.*'] });
  global.gc?.();
  const before = process.memoryUsage().rss;
  let sid = '';
  let unacked = 0;
  const done = new Promise((res) => ctl.onEvent((e) => {
    if (e.topic === 'pty.output') { unacked += Buffer.from(e.data.data, 'base64').length; if (unacked >= 5000) { ctl.notify('pty.ack', { session_id: sid, chars: unacked }); unacked = 0; } }
    else if (e.topic === 'pty.exit') res();
  }));
  const r = await ctl.call('pty.spawn', { command: process.execPath, args: writer.map((a) => a.replace(String(BYTES), String(Math.min(BYTES, 50 * 1048576)))), cols: 200, rows: 50 });
  sid = r.result.id;
  await viewer.call('pty.attach', { session_id: sid });
  viewer.ws._socket.pause(); // the viewer stops reading
  await done;
  const after = process.memoryUsage().rss;
  const stats = gw.websocket.stats();
  ctl.ws.close();
  viewer.ws.terminate();
  await gw.close();
  await manager.dispose();
  return { rssGrowthMb: (after - before) / 1048576, dropped: stats.connections.reduce((a, c) => a + (c.dropped ?? c.droppedFrames ?? 0), 0) };
}

const d = await direct();
const w = await throughWs();
const k = await keystrokes();
const s = await stalledViewer();
rmSync(root, { recursive: true, force: true });
console.log(`pty: direct read ${d.mbps.toFixed(1)} MB/s, through WebSocket ${w.mbps.toFixed(1)} MB/s → ${(w.mbps / d.mbps).toFixed(2)}x (target >= 0.7x), ${MB} MB`);
console.log(`pty: keystroke → echo over WebSocket, median ${k.median.toFixed(2)} ms, p90 ${k.p90.toFixed(2)} ms (target median < 5 ms), ${KEYS} keys`);
console.log(`pty: stalled viewer during a ${Math.min(MB, 50)} MB flood: server+client RSS growth ${s.rssGrowthMb.toFixed(1)} MB, frames dropped for the viewer ${s.dropped}`);
