import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import { SummaryReporter } from './test/support/summary-reporter.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    globalSetup: ['test/support/global-setup.ts'],
    reporters: ['default', new SummaryReporter()],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // The machine has two cores; end-to-end tests start real agent binaries.
    maxWorkers: 2,
    // Session starts record a pointer in the state home's session index: never in the real home.
    env: { GATEHOUSE_HOME: mkdtempSync(join(tmpdir(), 'gh-home-')) },
  },
});
