// Naming the holder of a busy port from a /proc tree: the live one for a real listener, and a
// /proc laid out as Linux does for the cases a test cannot stage (another user's socket).
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describePortHolder, portHolder } from '../../src/runtime/port-holder.js';
import { tempDir } from '../support/cli.js';

const NO_LSOF = { PATH: '' };
const HEADER = '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n';
/** One /proc/net/tcp row: local port `port` (hex), state, uid and inode. */
const row = (port: number, state: string, uid: number, inode: number): string =>
  `   0: 0100007F:${port.toString(16).toUpperCase().padStart(4, '0')} 00000000:0000 ${state} 00000000:00000000 00:00000000 00000000  ${uid}        0 ${inode} 1 0000000000000000 100 0 0 10 0\n`;

function fakeProc(rows: string): string {
  const root = tempDir('gh-proc-');
  mkdirSync(join(root, 'net'));
  writeFileSync(join(root, 'net', 'tcp'), HEADER + rows);
  writeFileSync(join(root, 'net', 'tcp6'), HEADER);
  return root;
}

describe('portHolder', () => {
  it('finds this process as the holder of a socket it listens on', async () => {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const port = (server.address() as { port: number }).port;
      const h = portHolder(port, NO_LSOF);
      expect(h?.pid).toBe(process.pid);
      expect(h?.command).toContain(process.execPath.split('/').pop());
    } finally {
      server.close();
    }
  });

  it('reads the pid and command line from the process whose fd is the socket', () => {
    const proc = fakeProc(row(7337, '01', 1000, 11) + row(7337, '0A', 1000, 4242));
    mkdirSync(join(proc, '77', 'fd'), { recursive: true });
    symlinkSync('socket:[4242]', join(proc, '77', 'fd', '3'));
    writeFileSync(join(proc, '77', 'cmdline'), `${['python3', '-m', 'http.server', '7337'].join('\0')}\0`);
    const h = portHolder(7337, NO_LSOF, proc);
    expect(describePortHolder(h)).toBe('pid 77 (python3 -m http.server 7337)');
  });

  it("names only the owner's uid when the process cannot be seen, and 'another process' when nothing can", () => {
    expect(describePortHolder(portHolder(7337, NO_LSOF, fakeProc(row(7337, '0A', 0, 99))))).toBe('a process of another user (uid 0)');
    expect(describePortHolder(portHolder(7337, NO_LSOF, fakeProc('')))).toBe('another process');
    expect(describePortHolder(portHolder(7337, NO_LSOF, join(tempDir('gh-proc-'), 'missing')))).toBe('another process');
  });
});
