import { defineConfig } from 'vitest/config';
import { SummaryReporter } from './test/support/summary-reporter.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    // Builds once, and gives the run its own temp folder (TMPDIR) and state home (GATEHOUSE_HOME).
    globalSetup: ['test/support/global-setup.ts'],
    reporters: ['default', new SummaryReporter()],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // The machine has two cores; end-to-end tests start real agent binaries.
    maxWorkers: 2,
  },
});
