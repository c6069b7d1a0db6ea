// Before the tests: gives the run its own temp folder and builds the CLI and hook bundles once,
// with the build `npm run build` runs (scripts/build.mjs): CLI and hook tests run the real built
// files as child processes, exactly as an agent would. After them: removes the temp folder.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function setup(): () => void {
  // Every temp folder the tests make, and every process they start, goes in one folder per run
  // (TMPDIR; the test workers start after this and inherit it), removed in teardown: a run leaves
  // nothing in the system's temp folder. Open to all and sticky, as /tmp is: the PostgreSQL tests
  // run their server as another user. Session starts record a pointer in the state home's session
  // index: never in the real home.
  const runTmp = mkdtempSync(join(tmpdir(), 'gh-tests-'));
  chmodSync(runTmp, 0o1777);
  process.env.TMPDIR = runTmp;
  process.env.GATEHOUSE_HOME = mkdtempSync(join(runTmp, 'gh-home-'));
  try {
    if (process.env.GATEHOUSE_SKIP_BUILD !== '1') execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: ['ignore', 'ignore', 'inherit'] });
  } catch (err) {
    removeRunTmp(runTmp);
    throw err;
  }
  return () => removeRunTmp(runTmp);
}

function removeRunTmp(runTmp: string): void {
  try {
    rmSync(runTmp, { recursive: true, force: true, maxRetries: 3 });
  } catch {
    // A test may have left a folder it made unwritable (to test refusals): open them up, then try again.
    spawnSync('chmod', ['-R', 'u+rwX', runTmp]);
    try {
      rmSync(runTmp, { recursive: true, force: true, maxRetries: 3 });
    } catch (err) {
      process.stderr.write(`the tests' temp folder ${runTmp} could not be removed: ${(err as Error).message}\n`);
    }
  }
}
