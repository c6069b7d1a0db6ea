// Interactive approvals with the real Claude Code CLI: a Bash call waits in the queue and
// is resolved over HTTP by a test client, as a person would from the dashboard.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startGateway } from '../../src/gateway/index.js';
import { osUserName } from '../../src/runtime/recorder.js';
import { decisionsFor, verifyProjectAudit } from '../support/audit.js';
import { gatehouse } from '../support/cli.js';
import { claudeBinary, makeTempProject, runClaude, say, startStubModel, tool, toolResults, type StubModel, type TempProject } from './support/index.js';

/** The gateway's access token: the person answering holds it, the agent does not. */
const ACCESS_TOKEN = 'e2e-access-token-0123456789abcdef';
const OPERATOR = { authorization: `Bearer ${ACCESS_TOKEN}` };

/** A run with a person in the loop takes a few seconds; the margin covers a loaded CI machine. */
const RUN_TEST_TIMEOUT_MS = 90_000;

let project: TempProject;
let state: string;
let stub: StubModel | undefined;
let gateway: { url: string; close(): Promise<void> } | undefined;
let sessionId = '';

beforeEach(async () => {
  project = makeTempProject();
  state = `${project.dir}-state`;
});

afterEach(async () => {
  await stub?.close();
  await gateway?.close();
  stub = undefined;
  gateway = undefined;
  if (sessionId) gatehouse(['session', 'end', sessionId, '--worktree', project.dir, '--state-dir', state]);
  sessionId = '';
  project.dispose();
});

async function startSession(timeoutSeconds: number): Promise<void> {
  writeFileSync(join(project.dir, 'gatehouse.yaml'), `approvals:\n  interactive: true\n  timeout_s: ${timeoutSeconds}\n`);
  const r = gatehouse(['session', 'start', '--agent', 'claude', '--worktree', project.dir, '--state-dir', state]);
  expect(r.status, r.stderr).toBe(0);
  sessionId = r.stdout.trim();
  gateway = await startGateway({ projectState: state, host: '127.0.0.1', port: 0, accessToken: ACCESS_TOKEN, tokens: [] });
}

/** Plays the person: waits for the pending call over HTTP and answers it; returns its id. */
async function answer(decision: 'allow' | 'reject', reason?: string): Promise<string> {
  for (let i = 0; i < 400; i++) {
    const res = await fetch(`${gateway!.url}/approvals/queue`, { headers: OPERATOR });
    const { pending } = (await res.json()) as { pending: { id: string; nonce: string; tool: string }[] };
    const item = pending[0];
    if (item) {
      expect(item.tool).toBe('Bash');
      const r = await fetch(`${gateway!.url}/approvals/${item.id}/resolve`, {
        method: 'POST',
        headers: { ...OPERATOR, 'content-type': 'application/json' },
        body: JSON.stringify({ decision, nonce: item.nonce, ...(reason ? { reason } : {}) }),
      });
      expect(r.status).toBe(200);
      return item.id;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the Bash call was never enqueued');
}

describe.skipIf(!claudeBinary())('interactive approvals with the real Claude Code', () => {
  it(
    'runs a Bash call once a person allows it over HTTP, and the model sees its output',
    async () => {
      await startSession(60);
      stub = await startStubModel([tool('Bash', { command: 'echo approved-output' }), say('done')]);
      const run = runClaude({ cwd: project.dir, prompt: 'run it', model: stub, timeoutMs: 60_000 });
      const approval = await answer('allow');
      const result = await run;
      expect(result.exitCode, result.stderr).toBe(0);
      expect(decisionsFor(state, approval).map((e) => [e.actor, e.data.decision])).toEqual([[`dashboard-operator:${osUserName()}`, 'allow']]);
      expect(verifyProjectAudit(state).ok).toBe(true);
      const [res] = toolResults(stub.turns[1]?.body);
      expect(res).toMatchObject({ isError: false });
      expect(res?.text).toContain('approved-output');
    },
    RUN_TEST_TIMEOUT_MS,
  );

  it(
    "passes a rejection's reason to the model",
    async () => {
      await startSession(60);
      stub = await startStubModel([tool('Bash', { command: 'echo should-not-run' }), say('ok')]);
      const run = runClaude({ cwd: project.dir, prompt: 'run it', model: stub, timeoutMs: 60_000 });
      await answer('reject', 'use the staging script instead');
      await run;
      const [res] = toolResults(stub.turns[1]?.body);
      expect(res?.isError).toBe(true);
      expect(res?.text).toContain('use the staging script instead');
      expect(res?.text).not.toContain('should-not-run\n');
    },
    RUN_TEST_TIMEOUT_MS,
  );

  it(
    'denies an unanswered call when the TTL runs out',
    async () => {
      await startSession(2);
      stub = await startStubModel([tool('Bash', { command: 'echo too-late' }), say('ok')]);
      const result = await runClaude({ cwd: project.dir, prompt: 'run it', model: stub, timeoutMs: 60_000 });
      expect(result.exitCode, result.stderr).toBe(0);
      const [res] = toolResults(stub.turns[1]?.body);
      expect(res?.isError).toBe(true);
      expect(res?.text).toMatch(/nobody answered within 2 s/);
    },
    RUN_TEST_TIMEOUT_MS,
  );
});
