// PTY and WebSocket only: the `pty` group of the suite in bench/run.mjs.
// Usage: node bench/pty.mjs [--mb N] [--keys N] [--quick] [--out FILE]
import { main } from './lib/suite.mjs';

await main(['--only', 'pty', ...process.argv.slice(2)]);
