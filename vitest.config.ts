import { chmodSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import { SummaryReporter } from './test/support/summary-reporter.js';

// Every temp folder the tests make, and every process they start, goes in one folder per run
// (TMPDIR), which the global teardown removes: a run leaves nothing behind in the system's temp
// folder. Open to all and sticky, as /tmp is: the PostgreSQL tests run their server as another user.
process.env.GATEHOUSE_TEST_TMP ??= mkdtempSync(join(tmpdir(), 'gh-tests-'));
const runTmp = process.env.GATEHOUSE_TEST_TMP;
chmodSync(runTmp, 0o1777);

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
    env: { TMPDIR: runTmp, GATEHOUSE_HOME: mkdtempSync(join(runTmp, 'gh-home-')) },
  },
});
