// The worker thread of the parallel team verify (bundled as dist/team-verify-worker.js): checks
// the pages of rows it is sent and answers each with its result.
import { parentPort } from 'node:worker_threads';
import { verifyTeamRange, type TeamRangeResult, type TeamRangeTask } from './pg-audit-range.js';

parentPort?.on('message', (task: TeamRangeTask) => {
  let result: TeamRangeResult;
  try {
    result = verifyTeamRange(task);
  } catch {
    // Whatever it is, the serial verify says what is wrong.
    result = { ok: false };
  }
  parentPort!.postMessage(result, result.ok ? [result.leaves, ...(result.subtree ? [result.subtree] : [])] : []);
});
