// What a person asked to approve a call sees, for every agent and every kind of tool: each
// adapter's real parser reads a real-shaped payload, and the summary shows the values that
// matter (the command, the paths, the URL, the patch's files), never argument names alone.
import { describe, expect, it } from 'vitest';
import { hookAdapter } from '../../src/adapters/hook-adapters.js';
import { summarizeCall } from '../../src/core/approvals/summary.js';
import { resolveView } from '../../src/core/tool-view.js';

/** Shows a no-break space (between a number and its unit) as `~`. */
const plain = (s: string): string => s.replaceAll('\u00a0', '~');

/** The summary of one call as the agent's hook would send it. */
function summary(agent: string, event: string, payload: Record<string, unknown>): string {
  const a = hookAdapter(agent);
  if (!a) throw new Error(`no adapter ${agent}`);
  const parsed = a.parseEvent(event, payload, '/w');
  if (!parsed.ok) throw new Error(parsed.reason);
  if (parsed.value.kind !== 'pre_tool') throw new Error('not a tool call');
  return plain(summarizeCall(parsed.value.tool, parsed.value.view ?? resolveView(undefined, parsed.value.input)));
}

type Case = [kind: string, tool: string, input: Record<string, unknown>, shown: string];

/** Claude-shaped payloads (Claude Code, the Agent SDK, Qwen Code, Codex): `tool_name` and `tool_input`. */
const shaped = (event: string) => (tool: string, input: Record<string, unknown>) => [event, { hook_event_name: event, cwd: '/w', tool_name: tool, tool_input: input }] as const;

const AGENTS: Record<string, { call: (tool: string, input: Record<string, unknown>) => readonly [string, Record<string, unknown>]; cases: Case[] }> = {
  claude: {
    call: shaped('PreToolUse'),
    cases: [
      ['shell', 'Bash', { command: 'git push --force origin main', description: 'push' }, 'Bash: git push --force origin main'],
      ['write', 'Write', { file_path: '/w/src/a.ts', content: 'a\nb\n' }, 'Write /w/src/a.ts: 2~lines (4~bytes)'],
      ['edit', 'Edit', { file_path: '/w/a.ts', old_string: 'x', new_string: 'yy' }, 'Edit /w/a.ts: replace 1~line (1~byte) with 1~line (2~bytes)'],
      ['read', 'Read', { file_path: '/home/u/.ssh/id_rsa' }, 'Read /home/u/.ssh/id_rsa'],
      ['fetch', 'WebFetch', { url: 'https://example.com/x', prompt: 'sum it up' }, 'WebFetch https://example.com/x {prompt: "sum it up"}'],
      ['other', 'mcp__slack__post', { channel: '#ops', text: 'deploying' }, 'mcp__slack__post {channel: "#ops", text: "deploying"}'],
    ],
  },
  'claude-sdk': { call: shaped('PreToolUse'), cases: [['shell', 'Bash', { command: 'rm -rf build' }, 'Bash: rm -rf build']] },
  qwen: {
    call: shaped('PreToolUse'),
    cases: [
      ['shell', 'run_shell_command', { command: 'curl x | sh', description: 'install', is_background: false }, 'run_shell_command: curl x | sh'],
      ['write', 'write_file', { file_path: '/w/a.md', content: 'hi' }, 'write_file /w/a.md: 1~line (2~bytes)'],
      ['edit', 'edit', { file_path: '/w/a.md', old_string: 'a', new_string: 'b' }, 'edit /w/a.md: replace 1~line (1~byte) with 1~line (1~byte)'],
      ['read', 'read_file', { absolute_path: '/etc/passwd' }, 'read_file /etc/passwd'],
      ['fetch', 'web_fetch', { url: 'https://evil.example/', prompt: 'x' }, 'web_fetch https://evil.example/ {prompt: "x"}'],
    ],
  },
  gemini: {
    call: shaped('BeforeTool'),
    cases: [
      ['shell', 'run_shell_command', { command: 'npm publish', description: 'ship' }, 'run_shell_command: npm publish'],
      ['write', 'write_file', { file_path: '/w/a.md', content: 'hi' }, 'write_file /w/a.md: 1~line (2~bytes)'],
      ['edit', 'replace', { file_path: '/w/a.md', old_string: 'a', new_string: 'b\nc' }, 'replace /w/a.md: replace 1~line (1~byte) with 2~lines (3~bytes)'],
      ['read', 'read_file', { absolute_path: '/w/.env' }, 'read_file /w/.env'],
      ['fetch', 'web_fetch', { prompt: 'read https://example.com/a' }, 'web_fetch read https://example.com/a'],
    ],
  },
  codex: {
    call: shaped('PreToolUse'),
    cases: [
      ['shell', 'Bash', { command: 'cargo publish' }, 'Bash: cargo publish'],
      [
        'patch',
        'apply_patch',
        { command: '*** Begin Patch\n*** Add File: new.ts\n+x\n*** Update File: old.ts\n*** Move to: moved.ts\n@@\n-a\n+b\n*** Delete File: gone.ts\n*** End Patch' },
        'apply_patch: add new.ts, update old.ts and move it to moved.ts, delete gone.ts',
      ],
    ],
  },
  copilot: {
    call: (tool, input) => ['preToolUse', { cwd: '/w', toolName: tool, toolArgs: input }] as const,
    cases: [
      ['shell', 'bash', { command: 'sudo reboot', description: 'x' }, 'bash: sudo reboot'],
      ['write', 'create', { path: '/w/a.ts', file_text: 'x' }, 'create /w/a.ts: 1~line (1~byte)'],
      ['edit', 'edit', { path: '/w/a.ts', old_str: 'x', new_str: 'y' }, 'edit /w/a.ts: replace 1~line (1~byte) with 1~line (1~byte)'],
      ['read', 'view', { path: '/w/secrets.txt' }, 'view /w/secrets.txt'],
    ],
  },
  opencode: {
    call: (tool, input) => ['tool.execute.before', { cwd: '/w', tool, args: input }] as const,
    cases: [
      ['shell', 'bash', { command: 'git reset --hard', description: 'x' }, 'bash: git reset --hard'],
      ['write', 'write', { filePath: '/w/a.ts', content: 'x' }, 'write /w/a.ts: 1~line (1~byte)'],
      ['edit', 'edit', { filePath: '/w/a.ts', oldString: 'x', newString: 'y', replaceAll: true }, 'edit /w/a.ts: replace 1~line (1~byte) with 1~line (1~byte), every occurrence'],
      ['fetch', 'webfetch', { url: 'https://example.com', format: 'text' }, 'webfetch https://example.com {format: "text"}'],
    ],
  },
  cursor: {
    call: (tool, input) =>
      tool === 'beforeShellExecution' ? (['beforeShellExecution', { cwd: '/w', ...input }] as const) : (['preToolUse', { cwd: '/w', tool_name: tool, tool_input: input }] as const),
    cases: [
      ['shell', 'beforeShellExecution', { command: 'rm -rf node_modules' }, 'Shell: rm -rf node_modules'],
      ['write', 'Write', { file_path: '/w/a.ts', contents: 'x' }, 'Write /w/a.ts: 1~line (1~byte)'],
      ['edit', 'StrReplace', { file_path: '/w/a.ts', old_string: 'x', new_string: 'y' }, 'StrReplace /w/a.ts: replace 1~line (1~byte) with 1~line (1~byte)'],
      ['other', 'Delete', { file_path: '/w/a.ts' }, 'Delete {file_path: "/w/a.ts"}'],
    ],
  },
};

describe('approval views by tool kind, for every agent', () => {
  for (const [agent, { call, cases }] of Object.entries(AGENTS)) {
    for (const [kind, tool, input, shown] of cases) {
      it(`${agent}: a ${kind} call shows its values (${tool})`, () => {
        const [event, payload] = call(tool, input);
        expect(summary(agent, event, payload)).toBe(shown);
      });
    }
  }

  it('covers every agent the hook bundle knows', async () => {
    const { AGENT_NAMES } = await import('../../src/adapters/hook-adapters.js');
    expect([...AGENT_NAMES].sort()).toEqual(Object.keys(AGENTS).sort());
  });
});
