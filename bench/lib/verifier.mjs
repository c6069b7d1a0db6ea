// Verifier-chain overhead per Stop, in process: the built-in structural stages the Claude
// Code Stop hook runs (tool_loop, execution_list reading the session transcript, and
// mutation_nudge), assembled from the package's public exports the way the hook assembles
// them, on a realistic 2,000-line transcript. Baseline: reading and JSON-parsing that same
// transcript, so the ratio shows what the chain costs beyond touching the file once.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { metric } from './stats.mjs';
import { LIB_URL, tempDir } from './common.mjs';

const VERIFIER_METRICS = { baseline: 'verifier.baseline.read_parse_transcript', chain: 'verifier.chain.stop' };

const SESSION = '9b1f3c2d-bench-47aa-8f0e-transcript01';
const FILES = ['src/parser.ts', 'src/date.ts', 'src/format.ts', 'test/parser.test.ts', 'src/index.ts', 'README.md'];
const BODY = (seed) => Array.from({ length: 40 }, (_, k) => `export function f${seed}_${k}(input: string): string { return input.trim() + ${JSON.stringify(String(seed * k))}; }`).join('\n');

/**
 * A Claude Code transcript of `lines` JSONL lines: user prompt, then assistant tool_use
 * lines (Read, Grep, Edit, Write, Bash, TodoWrite) each answered by a user tool_result line,
 * with the metadata Claude Code writes. Todo lists are rewritten along the way; the last one
 * (about two thirds in) has every item completed, so the whole chain runs and continues.
 */
function buildTranscript(lines, cwd) {
  const out = [];
  let parent = null;
  let t = Date.parse('2026-01-15T09:00:00Z');
  const push = (type, message, extra = {}) => {
    const uuid = `00000000-0000-4000-8000-${String(out.length).padStart(12, '0')}`;
    out.push(
      JSON.stringify({
        parentUuid: parent,
        isSidechain: false,
        userType: 'external',
        cwd,
        sessionId: SESSION,
        version: '2.1.328',
        gitBranch: 'main',
        type,
        message,
        uuid,
        timestamp: new Date((t += 1500)).toISOString(),
        ...extra,
      }),
    );
    parent = uuid;
  };
  push('user', { role: 'user', content: 'Fix the failing date parser test and keep the public API unchanged.' });
  const lastTodo = Math.floor(lines * 0.66);
  const tasks = ['Read the failing test', 'Find the parser bug', 'Fix the parser', 'Run the tests', 'Update the changelog'];
  for (let i = 0; out.length < lines - 1; i++) {
    const id = `toolu_${String(i).padStart(6, '0')}`;
    const file = FILES[i % FILES.length];
    let call;
    let result;
    if (i % 40 === 0 && out.length <= lastTodo) {
      const done = out.length + 80 > lastTodo ? tasks.length : Math.min(tasks.length - 1, i / 40);
      call = { name: 'TodoWrite', input: { todos: tasks.map((c, k) => ({ content: c, status: k < done ? 'completed' : k === done ? 'in_progress' : 'pending', activeForm: `${c}…` })) } };
      result = 'Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress.';
    } else if (i % 5 === 0) {
      call = { name: 'Read', input: { file_path: join(cwd, file) } };
      result = BODY(i);
    } else if (i % 5 === 1) {
      call = { name: 'Grep', input: { pattern: `f${i}_`, path: join(cwd, 'src'), output_mode: 'content' } };
      result = `src/parser.ts:${i}:export function f${i}_1(input: string): string {`;
    } else if (i % 5 === 2) {
      call = { name: 'Edit', input: { file_path: join(cwd, file), old_string: `return input.trim() + "${i}";`, new_string: `return input.trim() + "${i + 1}";`, replace_all: false } };
      result = `The file ${join(cwd, file)} has been updated.`;
    } else if (i % 5 === 3) {
      call = { name: 'Bash', input: { command: 'npm test -- parser', description: 'Run the parser tests' } };
      result = `> bench-project@1.0.0 test\n> vitest run parser\n\n ✓ test/parser.test.ts (${i % 17} tests) 12ms\n\n Test Files  1 passed (1)`;
    } else {
      call = { name: 'Write', input: { file_path: join(cwd, `src/gen-${i}.ts`), content: BODY(i).slice(0, 600) } };
      result = `File created successfully at: ${join(cwd, `src/gen-${i}.ts`)}`;
    }
    push(
      'assistant',
      {
        id: `msg_${i}`,
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5',
        content: [
          { type: 'text', text: `Step ${i}: using ${call.name}.` },
          { type: 'tool_use', id, ...call },
        ],
        stop_reason: 'tool_use',
        usage: { input_tokens: 1200 + i, output_tokens: 80, cache_read_input_tokens: 40_000 },
      },
      { requestId: `req_${i}` },
    );
    if (out.length < lines - 1)
      push(
        'user',
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: result }] },
        { toolUseResult: { stdout: typeof result === 'string' ? result.slice(0, 200) : '', stderr: '', interrupted: false } },
      );
  }
  push('assistant', {
    id: 'msg_final',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5',
    content: [{ type: 'text', text: 'The parser is fixed and the tests pass.' }],
    stop_reason: 'end_turn',
  });
  return `${out.join('\n')}\n`;
}

/** Interleaved in-process timing of the chain per Stop and of the read+parse baseline. */
export async function verifierBench({ runs, warmup, lines = 2000 }) {
  const lib = await import(LIB_URL);
  const dir = tempDir('gh-bench-verifier-');
  const file = join(dir, 'transcript.jsonl');
  const text = buildTranscript(lines, dir);
  writeFileSync(file, text);
  const lineCount = text.split('\n').filter(Boolean).length;
  if (lineCount !== lines) throw new Error(`the transcript has ${lineCount} lines, not ${lines}`);

  // The turn state as the hook keeps it: the last calls, the mutation track, the store.
  const { profile } = lib.clampProfile({});
  let recent = [];
  let track = lib.EMPTY_MUTATION_TRACK;
  const calls = [
    ['Edit', { file_path: join(dir, 'src/parser.ts'), old_string: 'a', new_string: 'b' }, 'write'],
    ['Bash', { command: 'npm test -- parser' }, 'shell'],
    ['Read', { file_path: join(dir, 'src/date.ts') }, 'read'],
  ];
  for (let i = 0; i < 12; i++) {
    const [name, input, kind] = calls[i % calls.length];
    const rec = lib.toolCallRecord(name, { ...input, n: i }, kind);
    recent = lib.pushRecent(recent, rec);
    track = lib.observeCall(track, rec, i);
  }
  const store = lib.memoryStateStore();

  const todos = lib.readTranscriptTodos(file);
  if (!todos || todos.length === 0 || todos.some((t) => t.status !== 'completed')) throw new Error("the transcript's latest TodoWrite was not found, or not all completed");

  const stop = async () => {
    const built = lib.buildVerifierChain(
      { enabled: true },
      {
        tool_loop: lib.toolLoopVerifier,
        execution_list: lib.executionListVerifier(() => lib.readTranscriptTodos(file)),
        mutation_nudge: lib.mutationNudgeVerifier(() => ({ track, hasExecutionTool: true, store })),
      },
    );
    if (!built.ok) throw new Error(built.reason);
    const ctx = { session_id: 'bench', iterations: 3, tool_calls_made: 12, final_text: 'done', recent_tool_calls: recent, stop_reason: 'end_turn', profile };
    return built.value.chain.run(ctx, new globalThis.AbortController().signal);
  };
  const parseAll = () => {
    let n = 0;
    for (const line of readFileSync(file, 'utf8').split('\n')) if (line) n += JSON.parse(line) ? 1 : 0;
    return n;
  };

  const chainMs = [];
  const baseMs = [];
  for (let i = 0; i < warmup + runs; i++) {
    let t0 = performance.now();
    const result = await stop();
    const c = performance.now() - t0;
    // Every stage ran and let the stop through: a chain that skipped its work would look fast.
    if (result.outcome !== 'continue' || result.records.map((r) => `${r.name}:${r.outcome}`).join() !== 'tool_loop:continue,execution_list:continue,mutation_nudge:continue') {
      throw new Error(`unexpected chain result ${JSON.stringify(result)}`);
    }
    t0 = performance.now();
    const parsed = parseAll();
    const b = performance.now() - t0;
    if (parsed !== lines) throw new Error(`parsed ${parsed} lines`);
    if (i >= warmup) {
      chainMs.push(c);
      baseMs.push(b);
    }
  }
  const size = `${lines}-line transcript, ${(text.length / 1048576).toFixed(1)} MB`;
  return [
    metric(VERIFIER_METRICS.baseline, 'ms', baseMs, { note: `readFileSync + JSON.parse of every line, ${size}` }),
    metric(VERIFIER_METRICS.chain, 'ms', chainMs, {
      baselineOf: VERIFIER_METRICS.baseline,
      targetChecks: [{ on: 'median', op: '<', value: 5 }],
      note: `tool_loop + execution_list (reads the transcript) + mutation_nudge, chain built per Stop; ${size}`,
    }),
  ];
}
