// The transcript reader that decodes only the lines holding `TodoWrite` must agree with the
// plain text reader on every transcript, non-ASCII text, CRLF and torn lines included.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { todosFromTranscript } from '../../src/core/turn/execution-list.js';
import { readTranscriptTodos } from '../../src/runtime/transcript.js';

const dir = mkdtempSync(join(tmpdir(), 'gh-transcript-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const assistant = (blocks: unknown[], extra: Record<string, unknown> = {}): string => JSON.stringify({ type: 'assistant', message: { role: 'assistant', content: blocks }, ...extra });
const todoWrite = (...todos: [string, string][]) => ({ type: 'tool_use', id: 't', name: 'TodoWrite', input: { todos: todos.map(([content, status]) => ({ content, status, activeForm: content })) } });
const text = (t: string) => assistant([{ type: 'text', text: t }]);
const bash = (command: string) => assistant([{ type: 'tool_use', id: 'b', name: 'Bash', input: { command } }]);

const CASES: Record<string, string> = {
  'one list': [text('plan'), assistant([todoWrite(['a', 'completed'], ['b', 'pending'])])].join('\n'),
  'the latest of several, then a Bash line naming TodoWrite': [assistant([todoWrite(['a', 'pending'])]), assistant([todoWrite(['a', 'completed'])]), bash('echo TodoWrite')].join('\n'),
  'non-ASCII text everywhere': [text('héllo wörld — ✓ 日本語'), assistant([todoWrite(['réparer le café ☕', 'in_progress'])]), text('ünïcödé after')].join('\n'),
  'CRLF line ends': [assistant([todoWrite(['a', 'pending'])]), text('x')].join('\r\n'),
  'a torn last line': (() => {
    const full = assistant([todoWrite(['a', 'completed'])]);
    return `${assistant([todoWrite(['a', 'in_progress'])])}\n${full.slice(0, -10)}`;
  })(),
  'the list on the very first line, no trailing newline': assistant([todoWrite(['first', 'pending'])]),
  'a sidechain list after the main one': [assistant([todoWrite(['main', 'pending'])]), assistant([todoWrite(['sub', 'completed'])], { isSidechain: true })].join('\n'),
  'no list at all': [text('nothing'), bash('ls')].join('\n') + '\n',
  'an unreadable latest list hides older ones': [assistant([todoWrite(['old', 'pending'])]), assistant([{ type: 'tool_use', id: 't', name: 'TodoWrite', input: { todos: 'oops' } }])].join('\n'),
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
