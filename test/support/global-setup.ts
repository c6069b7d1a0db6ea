// Builds the CLI and hook bundles once before the tests, with the build `npm run build` runs
// (scripts/build.mjs): CLI and hook tests run the real built files as child processes, exactly
// as an agent would.
import { execFileSync } from 'node:child_process';

export function setup(): void {
  if (process.env.GATEHOUSE_SKIP_BUILD === '1') return;
  execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: ['ignore', 'ignore', 'inherit'] });
}
