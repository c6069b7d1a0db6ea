// A property-based fuzz of the hook entry: random tool inputs (random Unicode with lone
// surrogates, random nesting, random sizes) added to a call Gatehouse refuses never turn the
// refusal into an allow, on the gate every transport runs and through the real hook bundle.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { runHookGate } from '../../src/gate/hook-gate.js';
import { hook, tempDir } from '../support/cli.js';
import { startTestSession } from '../support/git-session.js';

let root: string;
let state: string;
let sessionId: string;

beforeAll(async () => {
  const base = tempDir();
  root = join(base, 'repo');
  state = join(base, 'state');
  mkdirSync(join(root, 'src'), { recursive: true });
  const started = await startTestSession(root, state, { home: join(base, 'home') });
  sessionId = started.policy.session_id;
});

/** Any UTF-16 code units, lone surrogates, controls and bidi marks included. */
const anyText = fc.array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 24 }).map((units) => String.fromCharCode(...units));
/** Text with an occasional astral character, so well-formed surrogate pairs come too. */
const text = fc.oneof(anyText, fc.string({ unit: 'grapheme', maxLength: 12 }), fc.constantFrom('\ud800', '\udfff', '\ud83d\ude00', '\u202e', '\u0000', '\u009b[2J'));

/** Random JSON-shaped values, a few levels deep, with random keys. */
const { value } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    text,
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(text, tie('value'), { maxKeys: 4 }),
  ),
}));

/** A value wrapped `n` levels deep in objects or arrays: past the depth limit for large `n`. */
const deep = fc.tuple(fc.integer({ min: 1, max: 3000 }), fc.boolean()).map(([n, arrays]) => {
  let v: unknown = 1;
  for (let i = 0; i < n; i++) v = arrays ? [v] : { k: v };
  return v;
});

/** Extra fields for a tool input: random keys and values, sometimes deep, sometimes large. */
const extras = fc.dictionary(text, fc.oneof(value, deep, fc.string({ minLength: 1000, maxLength: 20_000 })), { minKeys: 1, maxKeys: 5 });

/** Calls the session refuses as they are: a write outside the allowlist, a command the classifier denies. */
const refusedCall = fc.constantFrom(
  { tool: 'Write', input: (): Record<string, unknown> => ({ file_path: join(root, 'outside.txt'), content: 'x' }) },
  { tool: 'Edit', input: (): Record<string, unknown> => ({ file_path: join(root, 'package.json'), old_string: 'a', new_string: 'b' }) },
  { tool: 'Bash', input: (): Record<string, unknown> => ({ command: 'rm -rf ~' }) },
  { tool: 'Bash', input: (): Record<string, unknown> => ({ command: `echo x > ${join(root, 'README.md')}` }) },
);

const payload = (tool: string, input: unknown): string => JSON.stringify({ hook_event_name: 'PreToolUse', cwd: root, tool_name: tool, tool_input: input });
const gate = (stdin: string) => runHookGate({ sessionId, eventName: 'PreToolUse', stateDir: state, agent: 'claude', failClosed: false, policyDigest: null, stdin, cwd: root });

describe('the hook entry under random input', () => {
  it('keeps every refused call refused, whatever fields, text, nesting or size are added to its input', async () => {
    await fc.assert(
      fc.asyncProperty(refusedCall, extras, async (call, extra) => {
        // The call's own fields win: the extras may not replace the path or command being judged.
        const out = await gate(payload(call.tool, { ...extra, ...call.input() }));
        expect(out.exitCode).toBe(2);
      }),
      { numRuns: 300 },
    );
  });

  it('never throws and answers every random call with an allow or a refusal', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(text, fc.constantFrom('Write', 'Edit', 'Bash', 'MultiEdit', 'NotebookEdit', 'Read')), fc.oneof(value, deep, extras), async (tool, input) => {
        const out = await gate(payload(tool, input));
        expect([0, 2]).toContain(out.exitCode);
      }),
      { numRuns: 300 },
    );
  });

  it('refuses the same way through the real hook bundle', () => {
    const samples = fc.sample(fc.tuple(refusedCall, extras), { numRuns: 8, seed: 20261201 });
    for (const [call, extra] of samples)
      expect(hook(['check', '--session', sessionId, '--event', 'PreToolUse', '--state-dir', state, '--agent', 'claude'], payload(call.tool, { ...extra, ...call.input() })).status).toBe(2);
  });
});
