// The worker thread of the parallel team verify (bundled as dist/team-verify-worker.js): checks
// the pages of rows it is sent and answers each with its result.
import { parentPort } from 'node:worker_threads';
import { answerRanges } from '../audit/worker-pool.js';
import { verifyTeamRange } from './pg-audit-range.js';

answerRanges(parentPort, verifyTeamRange);
