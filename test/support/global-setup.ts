// Builds the CLI and hook bundles once before the tests: CLI and hook tests run the
// real built files as child processes, exactly as an agent would.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';

export function setup(): void {
  if (process.env.GATEHOUSE_SKIP_BUILD === '1') return;
  rmSync('dist', { recursive: true, force: true });
  execFileSync(process.execPath, ['node_modules/tsup/dist/cli-default.js'], { stdio: ['ignore', 'ignore', 'inherit'] });
  execFileSync(process.execPath, ['scripts/build-hook.mjs'], { stdio: ['ignore', 'ignore', 'inherit'] });
  execFileSync(process.execPath, ['scripts/build-web.mjs'], { stdio: ['ignore', 'ignore', 'inherit'] });
  execFileSync(process.execPath, ['scripts/build-native.mjs'], { stdio: ['ignore', 'ignore', 'inherit'] });
}
