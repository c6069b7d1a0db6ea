// Hook latency only (cold and warm path, and the peer side by side): the `hook` group of the
// suite in bench/run.mjs. Usage: node bench/hook-latency.mjs [--runs N] [--quick] [--out FILE]
import { main } from './lib/suite.mjs';

await main(['--only', 'hook', ...process.argv.slice(2)]);
