// Audit log throughput only: the `audit` group of the suite in bench/run.mjs.
// Usage: node bench/audit.mjs [--events N] [--quick] [--out FILE]
import { main } from './lib/suite.mjs';

await main(['--only', 'audit', ...process.argv.slice(2)]);
