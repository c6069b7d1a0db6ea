// The worker thread of the parallel audit verify (bundled as dist/audit-verify-worker.js):
// checks the ranges it is sent and answers each with its result.
import { parentPort } from 'node:worker_threads';
import { verifyRange, type RangeTask } from './verify-range.js';

parentPort?.on('message', (task: RangeTask) => {
  let result;
  try {
    result = verifyRange(task);
  } catch {
    // The file changed under it, or could not be read: the serial verify says what is wrong.
    result = { ok: false as const };
  }
  parentPort!.postMessage(result, result.ok ? [result.leaves, ...(result.subtree ? [result.subtree] : [])] : []);
});
