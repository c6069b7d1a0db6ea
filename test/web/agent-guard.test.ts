// Which command lines start a known agent without its gate, against the server's real list
// of agents (the adapter registry), and what the form says about it.
import { describe, expect, it } from 'vitest';
import { agentPrograms } from '../../src/adapters/agent-programs.js';
import { knownAgents } from '../../src/adapters/registry.js';
import { programOf, ungatedWarning } from '../../src/web/agent-guard.js';
import type { SessionFields } from '../../src/web/new-session-form.js';

const AGENTS = agentPrograms();
const EMPTY: SessionFields = { mode: 'command', commandLine: '', cwd: '', agent: '', allow: '', require: '', sandbox: 'off' };

describe('agentPrograms', () => {
  it('lists every agent of the registry, with the program that starts it', () => {
    expect(AGENTS.map((a) => a.agent).sort()).toEqual(knownAgents().sort());
    expect(AGENTS.find((a) => a.agent === 'claude')?.programs).toEqual(['claude']);
    expect(AGENTS.find((a) => a.agent === 'cursor')?.programs).toContain('cursor-agent');
    expect(AGENTS.find((a) => a.agent === 'claude-sdk')?.programs).toEqual([]);
  });
});

describe('programOf', () => {
  it.each([
    [['claude'], 'claude'],
    [['/usr/local/bin/codex', 'exec', 'hi'], 'codex'],
    [['env', '-i', 'KEY=v', 'gemini'], 'gemini'],
    [['ANTHROPIC_API_KEY=x', 'nohup', 'claude', '-p'], 'claude'],
    [['bash', '-l'], 'bash'],
    [[], null],
  ])('%j runs %s', (argv, program) => {
    expect(programOf(argv)).toBe(program);
  });
});

describe('ungatedWarning', () => {
  it.each(['claude', 'codex --yolo', 'env KEY=v gemini', 'qwen', 'copilot', 'opencode', 'cursor-agent', '~/bin/claude'])('warns that "%s" as a plain command runs an agent ungated', (commandLine) => {
    const w = ungatedWarning({ ...EMPTY, commandLine }, AGENTS);
    expect(w?.text).toMatch(/without a gate/);
    expect(w?.agent).not.toBe('');
  });

  it('names the agent to gate it as', () => {
    expect(ungatedWarning({ ...EMPTY, commandLine: 'cursor-agent' }, AGENTS)).toMatchObject({ agent: 'cursor' });
  });

  it('says nothing for a shell, an empty line, or the agent under its own gate', () => {
    expect(ungatedWarning({ ...EMPTY, commandLine: 'bash -l' }, AGENTS)).toBeNull();
    expect(ungatedWarning(EMPTY, AGENTS)).toBeNull();
    expect(ungatedWarning({ ...EMPTY, mode: 'agent', agent: 'claude', commandLine: 'claude --model x' }, AGENTS)).toBeNull();
    expect(ungatedWarning({ ...EMPTY, mode: 'agent', agent: 'claude' }, AGENTS)).toBeNull();
  });

  it('warns when an agent session starts another agent, whose hooks were not rendered', () => {
    expect(ungatedWarning({ ...EMPTY, mode: 'agent', agent: 'claude', commandLine: 'codex' }, AGENTS)).toMatchObject({
      agent: 'codex',
      text: expect.stringMatching(/hooks are rendered for claude: codex would run without a gate/),
    });
  });

  it('warns about nothing when the server could not list its agents', () => {
    expect(ungatedWarning({ ...EMPTY, commandLine: 'claude' }, [])).toBeNull();
  });
});
