// The transcript reader that decodes only the lines naming a task tool and their results must
// agree with the plain text reader on every transcript, non-ASCII text, CRLF and torn lines included.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { todosFromTranscript } from '../../src/core/turn/execution-list.js';
import { appendFileSync } from 'node:fs';
import { readTail, readTranscriptTodos, settledTranscriptTodos } from '../../src/runtime/transcript.js';
import { claudeFixture } from '../core/turn/fixtures/claude-code.js';

const dir = mkdtempSync(join(tmpdir(), 'gh-transcript-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const assistant = (blocks: unknown[], extra: Record<string, unknown> = {}): string => JSON.stringify({ type: 'assistant', message: { role: 'assistant', content: blocks }, ...extra });
const answer = (id: string, isError = false, extra: Record<string, unknown> = {}): string =>
  JSON.stringify({
    type: 'user',
    message: {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: id, content: isError ? '<tool_use_error>Error: No such tool available: TodoWrite</tool_use_error>' : 'ok', ...(isError ? { is_error: true } : {}) },
      ],
    },
    ...extra,
  });
let ids = 0;
/** A TodoWrite call line and its id. */
const todoCall = (...todos: [string, string][]): [string, string] => {
  const id = `toolu_${++ids}`;
  return [assistant([{ type: 'tool_use', id, name: 'TodoWrite', input: { todos: todos.map(([content, status]) => ({ content, status, activeForm: content })) } }]), id];
};
/** An accepted TodoWrite: the call line, then its result. */
const todoWrite = (...todos: [string, string][]): string => {
  const [call, id] = todoCall(...todos);
  return `${call}\n${answer(id)}`;
};
const refused = (...todos: [string, string][]): string => {
  const [call, id] = todoCall(...todos);
  return `${call}\n${answer(id, true)}`;
};
const text = (t: string) => assistant([{ type: 'text', text: t }]);
const bash = (command: string) => assistant([{ type: 'tool_use', id: 'b', name: 'Bash', input: { command } }]);
/** A request blob Claude Code writes after a result: it names the same tool_use id. */
const blob = (id: string) => JSON.stringify({ type: 'api-request-blob', message: { role: 'user', content: [{ tool_use_id: id, type: 'tool_result', content: 'ok' }] } });

const CASES: Record<string, string> = {
  'one list': [text('plan'), todoWrite(['a', 'completed'], ['b', 'pending'])].join('\n'),
  'the latest of several, then a Bash line naming TodoWrite': [todoWrite(['a', 'pending']), todoWrite(['a', 'completed']), bash('echo TodoWrite')].join('\n'),
  'non-ASCII text everywhere': [text('héllo wörld — ✓ 日本語'), todoWrite(['réparer le café ☕', 'in_progress']), text('ünïcödé after')].join('\n'),
  'CRLF line ends': [todoWrite(['a', 'pending']), text('x')].join('\n').replaceAll('\n', '\r\n'),
  'a torn last line': (() => {
    const [full] = todoCall(['a', 'completed']);
    return `${todoWrite(['a', 'in_progress'])}\n${full.slice(0, -10)}`;
  })(),
  'a torn result line': (() => {
    const [call, id] = todoCall(['a', 'completed']);
    return `${todoWrite(['a', 'in_progress'])}\n${call}\n${answer(id).slice(0, -10)}`;
  })(),
  'the list on the very first line, no trailing newline': todoWrite(['first', 'pending']),
  'a sidechain list after the main one': [
    todoWrite(['main', 'pending']),
    assistant([{ type: 'tool_use', id: 'side', name: 'TodoWrite', input: { todos: [{ content: 'sub', status: 'completed', activeForm: 'sub' }] } }], { isSidechain: true }),
    answer('side', false, { isSidechain: true }),
  ].join('\n'),
  'no list at all': [text('nothing'), bash('ls')].join('\n') + '\n',
  'an unreadable latest list hides older ones': [todoWrite(['old', 'pending']), assistant([{ type: 'tool_use', id: 'bad', name: 'TodoWrite', input: { todos: 'oops' } }]), answer('bad')].join('\n'),
  'a refused call after an accepted one': [todoWrite(['a', 'completed']), refused(['a', 'pending'])].join('\n'),
  'only a refused call': refused(['a', 'pending']),
  'the newest call still waiting for its result': [todoWrite(['a', 'completed']), todoCall(['a', 'pending'])[0]].join('\n'),
  'a result written before its call': (() => {
    const [call, id] = todoCall(['a', 'pending']);
    return [answer(id), call].join('\n');
  })(),
  'request blobs and progress lines naming the id before its result': (() => {
    const [call, id] = todoCall(['a', 'pending']);
    return [call, JSON.stringify({ type: 'progress', toolUseID: id }), blob(id), answer(id, true), blob(id)].join('\n');
  })(),
  'empty file': '',
};

describe('readTranscriptTodos', () => {
  for (const [name, content] of Object.entries(CASES)) {
    it(`agrees with the text reader: ${name}`, () => {
      const file = join(dir, `${name.replace(/\W+/g, '-')}.jsonl`);
      writeFileSync(file, content);
      expect(readTranscriptTodos(file)).toEqual(todosFromTranscript(content));
    });
  }

  for (const name of ['todo-rejected', 'todo-accepted', 'tasks-rejected', 'tasks']) {
    const lines = claudeFixture(name);
    for (let n = 1; n <= lines.length; n++) {
      it(`agrees with the text reader on Claude Code's ${name} transcript, first ${n} lines`, () => {
        const content = `${lines.slice(0, n).join('\n')}\n`;
        const file = join(dir, `${name}-${n}.jsonl`);
        writeFileSync(file, content);
        expect(readTranscriptTodos(file)).toEqual(todosFromTranscript(content));
      });
    }
  }

  it('reads no list from a TodoWrite that Claude Code refused, and the accepted list otherwise', () => {
    const rejected = join(dir, 'rejected.jsonl');
    writeFileSync(rejected, claudeFixture('todo-rejected').join('\n'));
    expect(readTranscriptTodos(rejected)).toBeNull();
    const acceptedFile = join(dir, 'accepted.jsonl');
    writeFileSync(acceptedFile, claudeFixture('todo-accepted').join('\n'));
    expect(readTranscriptTodos(acceptedFile)).toEqual([
      { text: 'Write the parser', status: 'completed' },
      { text: 'Add tests', status: 'completed' },
    ]);
  });

  it("replays Claude Code's TaskCreate/TaskUpdate calls into the tasks still open", () => {
    const file = join(dir, 'tasks.jsonl');
    writeFileSync(file, claudeFixture('tasks').join('\n'));
    expect(readTranscriptTodos(file)).toEqual([
      { id: '1', text: 'Write the parser', status: 'completed' },
      { id: '3', text: 'Third, renamed', status: 'in_progress' },
    ]);
  });

  it('finds a result past the lines that only mention its id', () => {
    const [call, id] = todoCall(['a', 'pending']);
    const file = join(dir, 'past-mentions.jsonl');
    writeFileSync(file, [call, JSON.stringify({ type: 'progress', toolUseID: id }), blob(id), answer(id)].join('\n'));
    expect(readTranscriptTodos(file)).toEqual([{ text: 'a', status: 'pending' }]);
  });

  it('reads the non-ASCII list exactly', () => {
    const file = join(dir, 'exact.jsonl');
    writeFileSync(file, CASES['non-ASCII text everywhere']!);
    expect(readTranscriptTodos(file)).toEqual([{ text: 'réparer le café ☕', status: 'in_progress' }]);
  });

  it('gives null for no path and for a file that cannot be read', () => {
    expect(readTranscriptTodos(null)).toBeNull();
    expect(readTranscriptTodos(join(dir, 'missing.jsonl'))).toBeNull();
  });
});

describe("readTail: the transcript path is the agent's to choose", () => {
  it('reads only regular files, and never blocks on a FIFO or reads a device without end', () => {
    const fifo = join(dir, 'fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    expect(readTail(fifo, 1024)).toBeNull();
    expect(readTranscriptTodos(fifo)).toBeNull();
    expect(readTail('/dev/zero', 1024)).toBeNull();
    expect(readTail(dir, 1024)).toBeNull();
    expect(readTail(join(dir, 'missing'), 1024)).toBeNull();
  });

  it('keeps the last bytes of a long file', () => {
    const file = join(dir, 'long.jsonl');
    writeFileSync(file, 'abcdefghij');
    expect(readTail(file, 4)?.toString()).toBe('ghij');
    expect(readTail(file, 100)?.toString()).toBe('abcdefghij');
  });
});

describe('settledTranscriptTodos: Claude Code writes the transcript behind its hooks', () => {
  /** Appends `text` to `file` after `ms`, as Claude Code's batched writer does. */
  const appendLater = (file: string, text: string, ms: number): Promise<void> => new Promise((r) => setTimeout(() => r(appendFileSync(file, text)), ms));

  it('waits for the result of a call already in the file, then judges the list', async () => {
    const [call, id] = todoCall(['write the parser', 'in_progress']);
    const file = join(dir, 'lagging-result.jsonl');
    writeFileSync(file, `${call}\n`);
    const [read] = await Promise.all([settledTranscriptTodos(file, null), appendLater(file, `${answer(id)}\n`, 80)]);
    expect(read).toEqual({ items: [{ text: 'write the parser', status: 'in_progress' }], settled: true });
  });

  it('waits for the call the gate allowed last even when the file does not name it yet', async () => {
    const file = join(dir, 'lagging-call.jsonl');
    writeFileSync(file, `${todoWrite(['old', 'completed'])}\n`);
    const [call, id] = todoCall(['new', 'pending']);
    const [read] = await Promise.all([settledTranscriptTodos(file, id), appendLater(file, `${call}\n${answer(id)}\n`, 80)]);
    expect(read).toEqual({ items: [{ text: 'new', status: 'pending' }], settled: true });
  });

  it('reads at once when the file has caught up', async () => {
    const [call, id] = todoCall(['a', 'pending']);
    const file = join(dir, 'caught-up.jsonl');
    writeFileSync(file, `${call}\n${answer(id)}\n`);
    // A budget of zero still reads once: a caught-up file needs no second look.
    expect(await settledTranscriptTodos(file, id, 0)).toEqual({ items: [{ text: 'a', status: 'pending' }], settled: true });
  });

  it('gives up after its budget and says so, judging nothing on an unanswered newest call', async () => {
    const file = join(dir, 'never-answered.jsonl');
    writeFileSync(file, `${todoCall(['a', 'pending'])[0]}\n`);
    expect(await settledTranscriptTodos(file, null, 60)).toEqual({ items: null, settled: false });
    writeFileSync(file, `${todoWrite(['a', 'pending'])}\n`);
    expect(await settledTranscriptTodos(file, 'toolu_elsewhere', 60)).toEqual({ items: [{ text: 'a', status: 'pending' }], settled: false });
  });

  it('has nothing to wait for without a path or a readable file', async () => {
    expect(await settledTranscriptTodos(null, 'toolu_x')).toEqual({ items: null, settled: true });
    expect(await settledTranscriptTodos(join(dir, 'missing.jsonl'), 'toolu_x')).toEqual({ items: null, settled: true });
  });
});
