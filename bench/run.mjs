// The benchmark suite: hook latency (cold and warm path, and a peer side by side), verifier
// chain per Stop, approval round trip, audit log, PTY, sandbox. One table at the end and a JSON file.
// Usage: node bench/run.mjs [--quick | --smoke] [--out FILE] [--only GROUP[,GROUP…]]  (after `npm run build`)
import { main } from './lib/suite.mjs';

await main(process.argv.slice(2));
