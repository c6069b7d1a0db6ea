// Builds the CLI and hook bundles once before the tests, with the build `npm run build` runs
// (scripts/build.mjs): CLI and hook tests run the real built files as child processes, exactly
// as an agent would. Afterwards, removes the run's temp folder (vitest.config.ts).
import { execFileSync, spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';

export function setup(): void {
  if (process.env.GATEHOUSE_SKIP_BUILD === '1') return;
  execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: ['ignore', 'ignore', 'inherit'] });
}

export function teardown(): void {
  const dir = process.env.GATEHOUSE_TEST_TMP;
  if (dir === undefined) return;
  try {
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  } catch {
    // A test may have left a folder it made unwritable (to test refusals): open them up, then try again.
    spawnSync('chmod', ['-R', 'u+rwX', dir]);
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    } catch (err) {
      process.stderr.write(`the tests' temp folder ${dir} could not be removed: ${(err as Error).message}\n`);
    }
  }
}
