// The WebSocket client of the PTY throughput run, in its own process as a browser would be:
// spawns a PTY writer through the gateway, takes output as binary messages and acks it as the
// dashboard does, and prints `{ got, mbps, cpuMs }` (cpuMs: its own user + system CPU) when the
// PTY exits, timed to the last output (the writer lingers before it exits). `--base64` takes
// output as JSON with base64 instead.
// Usage: node bench/lib/ws-client.mjs URL ACCESS_TOKEN ARGS_JSON [--base64]
import { WebSocket } from 'ws';

const [url, token, args] = [process.argv[2], process.argv[3], JSON.parse(process.argv[4])];
const output = process.argv[5] === '--base64' ? 'base64' : 'binary';
const u = new URL(url);
const ws = new WebSocket(`ws://${u.host}/ws`, { headers: { authorization: `Bearer ${token}`, origin: u.origin } });
let got = 0;
let unacked = 0;
let sid = '';
let t0 = 0n;
let last = 0n;
/** Counts `n` output bytes and acks in the dashboard's steps. */
function received(n) {
  got += n;
  last = process.hrtime.bigint();
  unacked += n;
  if (unacked >= 5000) {
    ws.send(JSON.stringify({ jsonrpc: '2.0', method: 'pty.ack', params: { session_id: sid, chars: unacked } }));
    unacked = 0;
  }
}
ws.on('message', (raw, isBinary) => {
  if (isBinary) {
    // Kind 0x01, a u16 header length, the JSON header, then the bytes (src/protocol/binary-output.ts).
    if (raw[0] === 1) received(raw.length - 3 - raw.readUInt16BE(1));
    return;
  }
  const m = JSON.parse(raw.toString());
  if (m.id === 2) {
    if (!m.result) throw new Error(`pty.spawn failed: ${JSON.stringify(m.error)}`);
    sid = m.result.id;
    return;
  }
  if (m.method !== 'event') return;
  if (m.params.topic === 'pty.output') received(Buffer.from(m.params.data.data, 'base64').length);
  else if (m.params.topic === 'pty.exit') {
    const s = Number((last > 0n ? last : process.hrtime.bigint()) - t0) / 1e9;
    const cpu = process.cpuUsage();
    process.stdout.write(JSON.stringify({ got, mbps: got / 1048576 / s, cpuMs: (cpu.user + cpu.system) / 1000 }));
    ws.close();
  }
});
ws.on('open', () => {
  ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'events.subscribe', params: { topics: ['pty.*'], output } }));
  t0 = process.hrtime.bigint();
  ws.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'pty.spawn', params: { command: process.execPath, args, cols: 200, rows: 50 } }));
});
ws.on('error', (err) => {
  process.stderr.write(`ws-client: ${err.message}\n`);
  process.exit(1);
});
