// The worker thread of the parallel audit verify (bundled as dist/audit-verify-worker.js):
// checks the ranges it is sent and answers each with its result. A file that changed under it,
// or could not be read, is answered {ok: false}: the serial verify says what is wrong.
import { parentPort, workerData } from 'node:worker_threads';
import { verifyRange, type RangeShape, type RangeTask } from './verify-range.js';
import { answerRanges } from './worker-pool.js';

// The tree sizes every range must stop at, sent once rather than with each range.
const shape: RangeShape = { cuts: (workerData as { cuts?: number[] } | null)?.cuts ?? [] };

answerRanges(parentPort, (task: RangeTask) => verifyRange(task, shape));
