// What the new-session form keeps in localStorage: every choice, never a secret.
import { describe, expect, it } from 'vitest';
import type { SessionFields } from '../../src/web/new-session-form.js';
import { FORM_STORAGE_KEY, recallFields, rememberFields } from '../../src/web/session-form-memory.js';

/** The Web Storage interface over a Map, as a browser's localStorage behaves. */
class MemoryStorage implements Storage {
  readonly #items = new Map<string, string>();
  get length(): number {
    return this.#items.size;
  }
  clear(): void {
    this.#items.clear();
  }
  getItem(key: string): string | null {
    return this.#items.get(key) ?? null;
  }
  key(index: number): string | null {
    return [...this.#items.keys()][index] ?? null;
  }
  removeItem(key: string): void {
    this.#items.delete(key);
  }
  setItem(key: string, value: string): void {
    this.#items.set(key, value);
  }
}

const AGENT: SessionFields = { mode: 'agent', commandLine: 'claude --model opus', cwd: 'pkg', agent: 'claude', allow: 'src/**', require: 'test', sandbox: 'none' };

describe('session form memory', () => {
  it('gives back every field it was given', () => {
    const s = new MemoryStorage();
    rememberFields(s, AGENT);
    expect(recallFields(s)).toEqual(AGENT);
  });

  it.each([
    'env ANTHROPIC_API_KEY=sk-secret claude',
    'OPENAI_API_KEY=sk-secret codex',
    'codex --api-key sk-secret',
    'env KEY=sk-secret "claude',
    "sh -c 'export OPENAI_API_KEY=sk-secret; codex'",
    'codex --api_key sk-secret',
    "curl -H 'Authorization: Bearer sk-secret'",
    'git clone https://u:sk-secret@github.com/o/r',
    'tool --bearer sk-secret',
  ])('does not keep a command line carrying a secret: %s', (commandLine) => {
    const s = new MemoryStorage();
    rememberFields(s, { ...AGENT, commandLine });
    expect(s.getItem(FORM_STORAGE_KEY)).not.toContain('sk-secret');
    expect(recallFields(s)).toEqual({ ...AGENT, commandLine: '' });
  });

  it('reads nothing from an empty, foreign or broken entry', () => {
    const s = new MemoryStorage();
    expect(recallFields(s)).toBeNull();
    s.setItem(FORM_STORAGE_KEY, '{not json');
    expect(recallFields(s)).toBeNull();
    s.setItem(FORM_STORAGE_KEY, JSON.stringify({ mode: 'root', commandLine: 7 }));
    expect(recallFields(s)).toEqual({ mode: 'command', commandLine: '', cwd: '', agent: '', allow: '', require: '', sandbox: 'off' });
  });

  it('reads the sandbox as off from an entry saved before the choice existed, or one it does not know', () => {
    const s = new MemoryStorage();
    const { sandbox: _left, ...older } = AGENT;
    for (const entry of [older, { ...AGENT, sandbox: 'bubblewrap' }, { ...AGENT, sandbox: true }]) {
      s.setItem(FORM_STORAGE_KEY, JSON.stringify(entry));
      expect(recallFields(s)).toEqual({ ...AGENT, sandbox: 'off' });
    }
  });
});
