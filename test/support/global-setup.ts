// Before the tests: gives the run its own temp folder and builds the CLI and hook bundles once,
// with the build `npm run build` runs (scripts/build.mjs): CLI and hook tests run the real built
// files as child processes, exactly as an agent would. After them: removes the temp folder, and
// fails the run if a test wrote a session pointer into the real session index.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, rmdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { sessionIndexDir } from '../../src/runtime/session-index.js';
import { stateBase } from '../../src/runtime/state-base.js';
import { readSmallJson } from '../../src/runtime/small-file.js';

export function setup(): () => void {
  // Every temp folder the tests make, and every process they start, goes in one folder per run
  // (TMPDIR; the test workers start after this and inherit it), removed in teardown: a run leaves
  // nothing in the system's temp folder. Open to all and sticky, as /tmp is: the PostgreSQL tests
  // run their server as another user. Session starts record a pointer in the state home's session
  // index: never in the real home.
  const runTmp = mkdtempSync(join(tmpdir(), 'gh-tests-'));
  chmodSync(runTmp, 0o1777);
  const realBase = stateBase(process.env);
  process.env.TMPDIR = runTmp;
  process.env.GATEHOUSE_HOME = mkdtempSync(join(runTmp, 'gh-home-'));
  try {
    if (process.env.GATEHOUSE_SKIP_BUILD !== '1') execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: ['ignore', 'ignore', 'inherit'] });
  } catch (err) {
    removeRunTmp(runTmp);
    throw err;
  }
  return () => {
    removeRunTmp(runTmp);
    const leaked = pointersInto(realBase, runTmp);
    if (leaked.length > 0) {
      for (const f of leaked) {
        rmSync(f, { force: true });
        try {
          rmdirSync(dirname(f));
        } catch {
          // Another pointer of the same id is still there.
        }
      }
      // A teardown that throws is only printed: the exit code is what fails the run.
      process.exitCode = 1;
      process.stderr.write(
        `the tests wrote ${leaked.length} session pointer(s) into the real session index (${sessionIndexDir(realBase)}), for sessions in this run's temp folder; removed now. A test started a session with an env that has no GATEHOUSE_HOME (pass process.env's). The first: ${leaked[0]}\n`,
      );
    }
  };
}

/** The pointer files in `base`'s session index whose session lived under `root`. */
function pointersInto(base: string, root: string): string[] {
  const dir = sessionIndexDir(base);
  let ids: string[];
  try {
    ids = readdirSync(dir);
  } catch {
    return [];
  }
  return ids.flatMap((id) => {
    let names: string[] = [];
    try {
      names = readdirSync(join(dir, id));
    } catch {
      // Not a folder, or gone since the listing.
    }
    return names
      .map((n) => join(dir, id, n))
      .filter((f) => {
        const stateDir = readSmallJson(f, 64 * 1024)?.['state_dir'];
        return typeof stateDir === 'string' && stateDir.startsWith(`${root}/`);
      });
  });
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
