import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { osUserPrincipal } from '../../src/core/approvals/principal.js';
import type { Principal } from '../../src/core/approvals/principal.js';
import { ApprovalQueue } from '../../src/runtime/approvals/index.js';
import type { runTui as RunTuiFn } from '../../src/tui/run-tui.js';

type RunTui = typeof RunTuiFn;

/** How long the TUI may take to start reading keys, draw, or quit. */
// Generous: a loaded 2-core CI machine can stall a render for seconds; the poll returns as soon as it is met.
const WAIT_MS = 20_000;
const POLL_MS = 10;

let dir: string;
let ana: Principal;
let runTui: RunTui;

beforeAll(async () => {
  // Ink draws nothing but the last frame when it believes it runs in CI (it reads CI at import),
  // as `gatehouse tui` does on a real terminal: load it the way the CLI does, with CI cleared.
  delete process.env.CI;
  delete process.env.CONTINUOUS_INTEGRATION;
  ({ runTui } = await import('../../src/tui/run-tui.js'));
});

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gatehouse-run-tui-'));
  const who = osUserPrincipal('ana');
  if (!who.ok) throw new Error(who.reason);
  ana = who.value;
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** A stand-in terminal: keys go in through `stdin`, everything drawn collects in `output()`. */
function fakeTerminal(isTTY = true) {
  const stdin = Object.assign(new PassThrough(), { isTTY, setRawMode: () => stdin, ref: () => stdin, unref: () => stdin });
  let written = '';
  const stdout = Object.assign(
    new Writable({
      write(chunk: Buffer, _enc, done) {
        written += chunk.toString('utf8');
        done();
      },
    }),
    { isTTY: true, columns: 100, rows: 24 },
  );
  return { stdin: stdin as unknown as NodeJS.ReadStream, stdout: stdout as unknown as NodeJS.WriteStream, output: () => written };
}

async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((done) => setTimeout(done, POLL_MS));
  }
}

describe('runTui', () => {
  it('draws the pending calls of the project and resolves once q is pressed', async () => {
    const pending = new ApprovalQueue(dir).enqueue({ session_id: 'sess-1', agent: 'claude', tool: 'Bash', summary: 'npm publish', ttlSeconds: 120 });
    const term = fakeTerminal();
    let quit = false;
    const running = runTui({ projectState: dir, principal: ana, stdin: term.stdin, stdout: term.stdout }).then(() => {
      quit = true;
    });
    await until(() => term.output().includes(pending.id));
    expect(term.output()).toContain('npm publish');
    term.stdin.push('q');
    await until(() => quit);
    await running;
    expect(new ApprovalQueue(dir).list()).toHaveLength(1);
  });

  it('refuses to start without a terminal on stdin, saying why', async () => {
    const term = fakeTerminal(false);
    await expect(runTui({ projectState: dir, principal: ana, stdin: term.stdin, stdout: term.stdout })).rejects.toThrow(/interactive terminal/);
  });
});
