// Helpers shared by the stop-hook tests: temp dirs, Node scripts run through /bin/sh,
// and process-liveness probes that count an unreaped zombie as dead.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { shellQuote } from '../../../src/core/shell-quote.js';
import type { StopHookContext } from '../../../src/runtime/stop-hooks/context.js';

/** Upper bound, after a deadline or an abort, for the whole process group to be gone. */
export const GROUP_DEAD_WITHIN_MS = 1000;

/** A context every test can use as is. */
export const CTX: StopHookContext = { final_text: 'All done: tests pass.', iterations: 4, tool_calls_made: 7, stop_reason: 'end_turn', session_id: 'sess-1' };

/** A fresh temp dir and a cleanup that also kills any pid pushed to `strays`. */
export function tempDir(prefix: string): { dir: string; strays: number[]; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const strays: number[] = [];
  return {
    dir,
    strays,
    cleanup() {
      for (const pid of strays.splice(0)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Writes `script` to a file in `dir` and returns the shell text that runs it with this Node. */
export function nodeCommand(dir: string, file: string, script: string): string {
  const path = join(dir, file);
  writeFileSync(path, script);
  return `${shellQuote(process.execPath)} ${shellQuote(path)}`;
}

export { deadAt, waitForFile } from '../../support/processes.js';

/**
 * A Node script that ignores SIGTERM and starts a grandchild (same group) that also
 * ignores it and holds the output pipes; the grandchild's pid goes to `pidFile`.
 */
export function stubbornTreeScript(pidFile: string): string {
  const grandchild = "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000);";
  return `
    const { spawn } = require('node:child_process');
    process.on('SIGTERM', () => {});
    const g = spawn(process.execPath, ['-e', ${JSON.stringify(grandchild)}], { stdio: 'inherit' });
    require('node:fs').writeFileSync(${JSON.stringify(pidFile)}, g.pid + '\\n');
    console.log('started grandchild');
    setInterval(() => {}, 1000);
  `;
}

/** A Node script that writes `mib` MiB of 'a' to the given stream, respecting back-pressure, then `END`. */
export function floodScript(stream: 'stdout' | 'stderr', mib: number, exitCode = 0): string {
  return `
    const out = process.${stream};
    const block = Buffer.alloc(1024 * 1024, 97);
    let n = 0;
    function write() {
      while (n < ${mib}) {
        n++;
        if (!out.write(block)) return out.once('drain', write);
      }
      out.write('END', () => process.exit(${exitCode}));
    }
    write();
  `;
}
