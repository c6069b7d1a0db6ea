// Recovers the tail of a PTY's output that node-pty drops on Linux: its read stream can
// see end-of-file while the kernel still holds bytes the child wrote just before exiting.
import { readSync } from 'node:fs';
import type { IPty } from '@lydell/node-pty';

/**
 * Most bytes read back after a premature end-of-file. The kernel keeps at most a few
 * pty buffers' worth (tens of KiB) for a closed slave, so this bound is never the reason
 * a drain stops; it only keeps a misbehaving fd from holding the event loop.
 */
const MAX_EOF_DRAIN_BYTES = 4 * 1024 * 1024;
/** One read's size: the pty layer hands out at most a page or so per read anyway. */
const DRAIN_READ_BYTES = 64 * 1024;
/** The fd has nothing more now (EAGAIN) or ever (EIO once the slave side is closed). */
const EXPECTED_END_CODES = new Set(['EAGAIN', 'EIO']);

/** node-pty 1.1's private fields on Unix; absent on Windows or if a release renames them. */
interface UnixPtyInternals {
  _fd?: unknown;
  _socket?: { once?: (event: 'end', listener: () => void) => unknown };
}

/**
 * When node-pty's stream ends, reads whatever the master fd still holds (it is still open
 * and non-blocking at that moment) and hands it to `deliver` before node-pty reports exit.
 * A no-op where the internals are missing, which leaves node-pty's own behaviour.
 * See microsoft/node-pty#72 and #726.
 */
export function drainOnEof(pty: IPty, deliver: (chunk: Buffer) => void): void {
  const internals = pty as unknown as UnixPtyInternals;
  const fd = internals._fd;
  const socket = internals._socket;
  if (typeof fd !== 'number' || typeof socket?.once !== 'function') return;
  socket.once('end', () => {
    for (const chunk of readRemaining(fd)) deliver(chunk);
  });
}

function readRemaining(fd: number): Buffer[] {
  const chunks: Buffer[] = [];
  let total = 0;
  while (total < MAX_EOF_DRAIN_BYTES) {
    const buf = Buffer.allocUnsafe(DRAIN_READ_BYTES);
    let n: number;
    try {
      n = readSync(fd, buf, 0, buf.length, null);
    } catch (err) {
      if (EXPECTED_END_CODES.has((err as NodeJS.ErrnoException).code ?? '')) break;
      throw err;
    }
    if (n === 0) break;
    chunks.push(buf.subarray(0, n));
    total += n;
  }
  return chunks;
}
