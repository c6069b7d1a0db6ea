// The worker thread of the parallel audit verify (bundled as dist/audit-verify-worker.js):
// checks the ranges it is sent and answers each with its result. A file that changed under it,
// or could not be read, is answered {ok: false}: the serial verify says what is wrong.
import { parentPort } from 'node:worker_threads';
import { verifyRange } from './verify-range.js';
import { answerRanges } from './worker-pool.js';

answerRanges(parentPort, verifyRange);
