// The agent's task list read from Claude Code transcripts: the fixtures are lines of real
// transcripts written by Claude Code 2.1.328 against the stub model (see docs/verifier-chain.md).
import { describe, expect, it } from 'vitest';
import { todosFromTranscript } from '../../../src/core/turn/execution-list.js';
import { taskFactsOfLine } from '../../../src/core/turn/task-tools.js';
import { claudeFixture as fixture } from './fixtures/claude-code.js';

type Todo = { content: string; status: string; activeForm?: string };

/** One assistant line in Claude Code's transcript shape (one content block per line, as it writes them). */
function assistant(blocks: unknown[], extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    parentUuid: null,
    isSidechain: false,
    message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: blocks, stop_reason: null },
    type: 'assistant',
    uuid: 'u',
    sessionId: 's',
    ...extra,
  });
}
/** A user line answering `id`, the way Claude Code writes accepted and refused calls. */
function answer(id: string, opts: { error?: string; text?: string; detail?: unknown; extra?: Record<string, unknown> } = {}): string {
  const block =
    opts.error !== undefined
      ? { type: 'tool_result', content: `<tool_use_error>${opts.error}</tool_use_error>`, is_error: true, tool_use_id: id }
      : { tool_use_id: id, type: 'tool_result', content: opts.text ?? 'Todos have been modified successfully.' };
  return JSON.stringify({ parentUuid: 'u', isSidechain: false, type: 'user', message: { role: 'user', content: [block] }, toolUseResult: opts.detail ?? opts.error ?? {}, ...opts.extra });
}
const todoWrite = (id: string, todos: Todo[]) => ({ type: 'tool_use', id, name: 'TodoWrite', input: { todos } });
const todo = (content: string, status: string): Todo => ({ content, status, activeForm: `Doing ${content}` });
/** An accepted TodoWrite: the call and Claude Code's answer. */
const accepted = (id: string, todos: Todo[]) => [assistant([todoWrite(id, todos)]), answer(id)];
const REFUSED = 'Error: No such tool available: TodoWrite. TodoWrite is disabled for this session, in subagents as well as here.';
const user = (text: string) => JSON.stringify({ type: 'user', message: { role: 'user', content: text } });

describe('todosFromTranscript with real Claude Code 2.1.328 transcripts', () => {
  it('has no list when Claude Code refused the TodoWrite (the default model has the tool off)', () => {
    const lines = fixture('todo-rejected');
    expect(lines.join('\n')).toContain('No such tool available: TodoWrite');
    expect(todosFromTranscript(lines.join('\n'))).toBeNull();
  });

  it('reads accepted TodoWrites, skipping one Claude Code refused for a bad input', () => {
    const lines = fixture('todo-accepted');
    // After the first call and its answer: one item is still in progress.
    expect(todosFromTranscript(lines.slice(0, 5).join('\n'))).toEqual([
      { text: 'Write the parser', status: 'completed' },
      { text: 'Add tests', status: 'in_progress' },
    ]);
    // The second call (`todos: "bad"`) came back as an InputValidationError: the first list stands.
    expect(todosFromTranscript(lines.slice(0, 9).join('\n'))).toEqual([
      { text: 'Write the parser', status: 'completed' },
      { text: 'Add tests', status: 'in_progress' },
    ]);
    expect(todosFromTranscript(lines.join('\n'))).toEqual([
      { text: 'Write the parser', status: 'completed' },
      { text: 'Add tests', status: 'completed' },
    ]);
  });

  it('has no list while the newest call has no result yet', () => {
    const lines = fixture('todo-accepted');
    // The last call's line is there, its answer not yet: it may be about to close the list.
    expect(todosFromTranscript(lines.slice(0, 10).join('\n'))).toBeNull();
  });
});

describe('todosFromTranscript with TaskCreate/TaskUpdate in a real Claude Code 2.1.328 transcript', () => {
  const lines = fixture('tasks');
  const upTo = (n: number) => todosFromTranscript(lines.slice(0, n).join('\n'));
  const task = (id: string, text: string, status: string) => ({ id, text, status });

  it('has no list when Claude Code refused the TaskCreate (the default model has the task tools off)', () => {
    expect(fixture('tasks-rejected').join('\n')).toContain('No such tool available: TaskCreate');
    expect(todosFromTranscript(fixture('tasks-rejected').join('\n'))).toBeNull();
  });

  it('numbers tasks as Claude Code answered, once both results of a parallel TaskCreate are in', () => {
    expect(upTo(6)).toBeNull();
    expect(upTo(7)).toBeNull();
    expect(upTo(8)).toEqual([task('1', 'Write the parser', 'pending'), task('2', 'Add tests', 'pending')]);
  });

  it('replays TaskUpdate status changes and drops deleted tasks', () => {
    expect(upTo(12)).toEqual([task('1', 'Write the parser', 'in_progress'), task('2', 'Add tests', 'pending')]);
    expect(upTo(15)).toEqual([task('1', 'Write the parser', 'completed'), task('2', 'Add tests', 'pending')]);
    expect(upTo(18)).toEqual([task('1', 'Write the parser', 'completed')]);
  });

  it('does not count a TaskUpdate that found no task (success false, not an error result)', () => {
    expect(lines[19]).toContain('"taskId":"99"');
    expect(upTo(21)).toEqual([task('1', 'Write the parser', 'completed')]);
  });

  it('follows a renamed subject, skips a refused TaskUpdate, and reads the task id Claude Code coerced', () => {
    expect(upTo(24)).toEqual([task('1', 'Write the parser', 'completed'), task('3', 'Third', 'pending')]);
    expect(upTo(27)).toEqual([task('1', 'Write the parser', 'completed'), task('3', 'Third, renamed', 'pending')]);
    // `taskId: 3` (a number) was refused as an InputValidationError.
    expect(upTo(30)).toEqual([task('1', 'Write the parser', 'completed'), task('3', 'Third, renamed', 'pending')]);
    // `{id: "3"}` was taken as taskId "3": the answer says which task changed.
    expect(upTo(33)).toEqual([task('1', 'Write the parser', 'completed'), task('3', 'Third, renamed', 'in_progress')]);
  });

  it('ends with the list Claude Code itself kept: #1 completed, #3 in progress', () => {
    expect(upTo(lines.length)).toEqual([task('1', 'Write the parser', 'completed'), task('3', 'Third, renamed', 'in_progress')]);
  });
});

describe('todosFromTranscript with both kinds of task tools', () => {
  const created = (callId: string, id: string, subject: string) => [
    assistant([{ type: 'tool_use', id: callId, name: 'TaskCreate', input: { subject, description: subject } }]),
    answer(callId, { text: `Task #${id} created successfully: ${subject}`, detail: { task: { id, subject, description: subject } } }),
  ];

  it('takes the list of the kind of tool used last', () => {
    const tasksLast = [...accepted('t1', [todo('todo item', 'pending')]), ...created('c1', '1', 'task item')].join('\n');
    expect(todosFromTranscript(tasksLast)).toEqual([{ id: '1', text: 'task item', status: 'pending' }]);
    const todosLast = [...created('c1', '1', 'task item'), ...accepted('t1', [todo('todo item', 'completed')])].join('\n');
    expect(todosFromTranscript(todosLast)).toEqual([{ text: 'todo item', status: 'completed' }]);
  });

  it("does not count a TaskCreate or TaskUpdate without Claude Code's structured answer", () => {
    const bare = [assistant([{ type: 'tool_use', id: 'c1', name: 'TaskCreate', input: { subject: 'x', description: 'x' } }]), answer('c1', { text: 'Task #1 created successfully: x' })].join('\n');
    expect(todosFromTranscript(bare)).toBeNull();
    const update = [assistant([{ type: 'tool_use', id: 'u1', name: 'TaskUpdate', input: { taskId: '1', status: 'completed' } }]), answer('u1', { text: 'Updated task #1 status' })];
    expect(todosFromTranscript([...created('c1', '1', 'x'), ...update].join('\n'))).toEqual([{ id: '1', text: 'x', status: 'pending' }]);
  });
});

describe('todosFromTranscript', () => {
  it('reads the todos of an accepted TodoWrite call', () => {
    const text = [user('fix it'), assistant([{ type: 'text', text: 'Planning.' }]), ...accepted('t1', [todo('a', 'completed'), todo('b', 'in_progress'), todo('c', 'pending')]), ''].join('\n');
    expect(todosFromTranscript(text)).toEqual([
      { text: 'a', status: 'completed' },
      { text: 'b', status: 'in_progress' },
      { text: 'c', status: 'pending' },
    ]);
  });

  it('lets the latest accepted TodoWrite win', () => {
    const text = [
      ...accepted('t1', [todo('a', 'pending'), todo('b', 'pending')]),
      ...accepted('t2', [todo('a', 'completed'), todo('b', 'in_progress')]),
      assistant([{ type: 'tool_use', id: 'b1', name: 'Bash', input: { command: 'echo TodoWrite' } }]),
      answer('b1', { text: 'TodoWrite' }),
    ].join('\n');
    expect(todosFromTranscript(text)).toEqual([
      { text: 'a', status: 'completed' },
      { text: 'b', status: 'in_progress' },
    ]);
  });

  it('never reads a refused TodoWrite as the list', () => {
    const refusedOnly = [assistant([todoWrite('t1', [todo('a', 'pending')])]), answer('t1', { error: REFUSED })].join('\n');
    expect(todosFromTranscript(refusedOnly)).toBeNull();
    const thenRefused = [...accepted('t1', [todo('a', 'completed')]), assistant([todoWrite('t2', [todo('a', 'pending')])]), answer('t2', { error: REFUSED })].join('\n');
    expect(todosFromTranscript(thenRefused)).toEqual([{ text: 'a', status: 'completed' }]);
  });

  it('does not count a call whose result is missing, and has no list while the newest one waits for its result', () => {
    const waiting = [...accepted('t1', [todo('a', 'completed')]), assistant([todoWrite('t2', [todo('a', 'pending')])])].join('\n');
    expect(todosFromTranscript(waiting)).toBeNull();
    // An older call that never got a result (an interrupted run) is not counted.
    const lost = [assistant([todoWrite('t1', [todo('lost', 'pending')])]), ...accepted('t2', [todo('a', 'completed')])].join('\n');
    expect(todosFromTranscript(lost)).toEqual([{ text: 'a', status: 'completed' }]);
  });

  it('counts a result only after its call, and a call written twice once', () => {
    const early = [answer('t1'), assistant([todoWrite('t1', [todo('a', 'pending')])])].join('\n');
    expect(todosFromTranscript(early)).toBeNull();
    const call = assistant([todoWrite('t1', [todo('a', 'pending')])]);
    const twice = [call, answer('t1'), ...accepted('t2', [todo('a', 'completed')]), call].join('\n');
    expect(todosFromTranscript(twice)).toEqual([{ text: 'a', status: 'completed' }]);
  });

  it('reads each result of a user line that answers several calls', () => {
    const line = JSON.stringify({
      type: 'user',
      message: {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 't1', content: 'ok' },
          { type: 'tool_result', tool_use_id: 't2', content: REFUSED, is_error: true },
        ],
      },
    });
    const text = [assistant([todoWrite('t1', [todo('first', 'completed')])]), assistant([todoWrite('t2', [todo('second', 'pending')])]), line].join('\n');
    expect(todosFromTranscript(text)).toEqual([{ text: 'first', status: 'completed' }]);
  });

  it('skips junk lines and CRLF endings', () => {
    const text = ['not json', '{"type":', '[1,2]', 'null', ...accepted('t1', [todo('a', 'pending')]), '"TodoWrite"', '{"TodoWrite": 1}'].join('\r\n');
    expect(todosFromTranscript(text)).toEqual([{ text: 'a', status: 'pending' }]);
  });

  it('skips a torn last line still being written and falls back to the last whole call', () => {
    const full = assistant([todoWrite('t2', [todo('a', 'completed')])]);
    const torn = full.slice(0, full.length - 10);
    expect(torn).toContain('TodoWrite');
    expect(todosFromTranscript([...accepted('t1', [todo('a', 'in_progress')]), torn].join('\n'))).toEqual([{ text: 'a', status: 'in_progress' }]);
  });

  it('returns null when there is no TodoWrite', () => {
    expect(todosFromTranscript([user('hi'), assistant([{ type: 'text', text: 'done' }])].join('\n'))).toBeNull();
    expect(todosFromTranscript('')).toBeNull();
  });

  it('returns an empty list for an accepted TodoWrite that cleared the list', () => {
    expect(todosFromTranscript(accepted('t1', []).join('\n'))).toEqual([]);
  });

  it('ignores a subagent (sidechain) TodoWrite and a sidechain answer', () => {
    const sub = [assistant([todoWrite('t2', [todo('sub', 'pending')])], { isSidechain: true }), answer('t2', { extra: { isSidechain: true } })];
    expect(todosFromTranscript([...accepted('t1', [todo('main', 'completed')]), ...sub].join('\n'))).toEqual([{ text: 'main', status: 'completed' }]);
  });

  it('ignores a TodoWrite-looking block in a user line', () => {
    const fake = JSON.stringify({ type: 'user', message: { role: 'user', content: [todoWrite('t1', [todo('x', 'pending')])] } });
    expect(todosFromTranscript([fake, answer('t1')].join('\n'))).toBeNull();
  });

  it('says "no list" rather than fall back to a stale one when the latest accepted TodoWrite has no todos array', () => {
    const text = [...accepted('t1', [todo('a', 'pending')]), assistant([{ type: 'tool_use', id: 't2', name: 'TodoWrite', input: {} }]), answer('t2')].join('\n');
    expect(todosFromTranscript(text)).toBeNull();
  });

  it('leaves out items it cannot read instead of guessing', () => {
    const text = accepted('t1', [todo('a', 'pending'), { content: 'b', status: 'blocked' }, { status: 'pending' } as Todo]).join('\n');
    expect(todosFromTranscript(text)).toEqual([{ text: 'a', status: 'pending' }]);
  });
});

describe('taskFactsOfLine', () => {
  it("reads a refused call as an error with its text and the line's toolUseResult", () => {
    const lines = fixture('todo-rejected');
    const facts = lines.map(taskFactsOfLine);
    expect(facts[3]?.calls).toEqual([expect.objectContaining({ id: 'toolu_stub_0_1', tool: 'TodoWrite' })]);
    expect(facts[4]?.outcomes).toEqual([['toolu_stub_0_1', { isError: true, text: `<tool_use_error>${REFUSED}</tool_use_error>`, detail: REFUSED }]]);
  });

  it('gives null for junk and for lines that are not a conversation message', () => {
    expect(taskFactsOfLine('{"type":')).toBeNull();
    expect(taskFactsOfLine(JSON.stringify({ type: 'tools-used', tools: ['TodoWrite'] }))).toBeNull();
  });
});
