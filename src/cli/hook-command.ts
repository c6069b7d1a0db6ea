// The hook command shared by the lean bundle (dist/hook/hook.js) and `gatehouse hook-gate`:
// parse argv, read stdin, decide, write the agent's output, return the exit code.
import { readFileSync, writeSync } from 'node:fs';
import { runHookGate, type HookRequest } from '../gate/hook-gate.js';
import { MAX_INPUT_BYTES } from '../core/hook-input.js';

/** Largest hook input read from stdin; a Write of a large file carries its content. */

const USAGE = 'usage: hook check --session ID --event PreToolUse|Stop --state-dir DIR [--agent claude] [--policy-sha256 HEX] [--fail-closed]';

/** A policy digest as `session start` renders it. */
const DIGEST_RE = /^[0-9a-f]{64}$/;

/** Parses the hook's argv; `null` means the call is malformed. */
function parseHookArgs(argv: readonly string[]): Omit<HookRequest, 'stdin' | 'cwd'> | null {
  if (argv[0] !== 'check') return null;
  const out: Omit<HookRequest, 'stdin' | 'cwd'> = { sessionId: '', eventName: '', stateDir: '', agent: 'claude', failClosed: false, policyDigest: null };
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i];
    const next = argv[i + 1];
    if (a === '--fail-closed') out.failClosed = true;
    else if (next === undefined) return null;
    else if (a === '--session') out.sessionId = next;
    else if (a === '--event') out.eventName = next;
    else if (a === '--state-dir') out.stateDir = next;
    else if (a === '--agent') out.agent = next;
    else if (a === '--policy-sha256' && DIGEST_RE.test(next)) out.policyDigest = next;
    else return null;
    if (a !== '--fail-closed') i++;
  }
  if (!out.sessionId || !out.eventName || !out.stateDir) return null;
  return out;
}

/** The hook input, or null when it is larger than Gatehouse reads. */
function readStdin(): string | null {
  try {
    const buf = readFileSync(0);
    return buf.length > MAX_INPUT_BYTES ? null : buf.toString('utf8');
  } catch {
    return '';
  }
}

/** Runs one hook call and returns the exit code. Exit 1 never happens: agents treat it as "proceed". */
export async function hookMain(argv: readonly string[]): Promise<number> {
  const args = parseHookArgs(argv);
  if (!args) {
    writeAll(2, `${USAGE}\n`);
    // A malformed render must not wedge the agent; it is not a block either.
    return 0;
  }
  const stdin = readStdin();
  const out = await runHookGate({ ...args, stdin: stdin ?? '', ...(stdin === null ? { stdinTooLarge: true } : {}), cwd: process.cwd() });
  if (out.stdout) writeAll(1, out.stdout);
  if (out.stderr) writeAll(2, out.stderr);
  return out.exitCode;
}

/**
 * Writes the answer straight to the descriptor. `process.stderr` on a pipe builds a stream
 * and loads Node's net and stream modules, about 4 ms of a refusal's cold start, to write
 * one line. A non-blocking pipe that is full (EAGAIN) is waited on and written again.
 */
function writeAll(fd: number, text: string): void {
  const bytes = Buffer.from(text, 'utf8');
  for (let off = 0, tries = 0; off < bytes.length;) {
    try {
      off += writeSync(fd, bytes, off);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN' || ++tries > 1000) return;
      Atomics.wait(PAUSE, 0, 0, 1);
    }
  }
}

const PAUSE = new Int32Array(new SharedArrayBuffer(4));
