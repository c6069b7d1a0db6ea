// The contract every registered adapter keeps, checked for all of them in one loop (in the
// manner of Hono's common.case.test.ts): one list of agents, and per agent the same checks.
import { describe, expect, it } from 'vitest';
import type { HookOutput } from '../../src/adapters/adapter.js';
import { AGENT_NAMES, hookAdapter, type AgentName } from '../../src/adapters/hook-adapters.js';
import { allow, block, type Verdict } from '../../src/core/verdict.js';
import { adapterFor, knownAgents } from '../../src/adapters/registry.js';
import { isStopEvent, STOP_EVENTS } from '../../src/adapters/stop-events.js';

/** A stop payload with the fields any agent's end-of-turn event may carry. */
const STOP_PAYLOAD = { session_id: 's', cwd: '/tmp', hook_event_name: 'Stop', stop_hook_active: false, prompt_response: 'done', status: 'completed', loop_count: 0 };

/** Agents with no end-of-turn surface at all, and why: their stop-event checks are skipped by name. */
const NO_STOP_SURFACE: Readonly<Record<string, string>> = {
  opencode: 'OpenCode has no blocking stop surface (only session.idle); the end-of-session check is its completion gate',
};

describe('adapter registries', () => {
  it('name the same agents, in the same order', () => {
    expect(knownAgents()).toEqual([...AGENT_NAMES]);
    expect(AGENT_NAMES.length).toBeGreaterThan(0);
  });

  describe.each([...AGENT_NAMES])('%s', (agent) => {
    it('has a full adapter of that name and a hook adapter with the same parse and output', () => {
      const full = adapterFor(agent);
      const hook = hookAdapter(agent);
      expect(full?.name).toBe(agent);
      expect(hook).toBeDefined();
      expect(full?.parseEvent).toBe(hook?.parseEvent);
      expect(full?.output).toBe(hook?.output);
    });

    const noStop = NO_STOP_SURFACE[agent];
    if (noStop !== undefined) {
      it.skip(`declares stop events — skipped: ${noStop}`, () => {});
      it('declares no stop events and offers no completion gate in-session', () => {
        expect(hookAdapter(agent)?.stopEvents).toEqual([]);
        expect(adapterFor(agent)?.capabilities.completion_gate.level).toBe('none');
      });
    } else {
      it('declares its own stop events, each read as a stop and counted in the shared set', () => {
        const hook = hookAdapter(agent)!;
        expect(hook.stopEvents.length).toBeGreaterThan(0);
        expect(adapterFor(agent)?.capabilities.completion_gate.level).toBe('blocking');
        for (const name of hook.stopEvents) {
          const parsed = hook.parseEvent(name, { ...STOP_PAYLOAD, hook_event_name: name }, '/tmp');
          expect(parsed.ok && parsed.value.kind, `${agent} ${name}`).toBe('stop');
          expect(isStopEvent(agent, name)).toBe(true);
          expect(STOP_EVENTS.has(name)).toBe(true);
        }
      });
    }
  });
});

/** What the agent does with a hook's answer, as HOOK-CONTRACTS.md describes its contract. */
interface Reading {
  /** The tool call is refused, or at a stop the agent goes on with another turn. */
  refused: boolean;
  /** The whole run ends. */
  halted: boolean;
  /** What the model (or, for a halt, the user) is told. */
  reason: string | null;
  /** What the user is shown beside an allowed action. */
  message: string | null;
}

type Kind = 'pre_tool' | 'stop';
const ALLOWED: Reading = { refused: false, halted: false, reason: null, message: null };

function jsonOf(stdout: string): Record<string, unknown> | null {
  return stdout.trimStart().startsWith('{') ? (JSON.parse(stdout) as Record<string, unknown>) : null;
}

/** Claude Code and the agents hooked in its shape: exit 2 refuses with stderr; exit 0 stdout is JSON when it starts with `{`. */
function readClaudeShaped(kind: Kind, out: HookOutput): Reading {
  if (out.exitCode === 2) return { ...ALLOWED, refused: true, reason: out.stderr.trim() || null };
  const json = jsonOf(out.stdout);
  if (json === null) return ALLOWED;
  if (json['continue'] === false) return { ...ALLOWED, halted: true, reason: String(json['stopReason'] ?? '') };
  const specific = json['hookSpecificOutput'] as Record<string, unknown> | undefined;
  const refused = kind === 'stop' ? json['decision'] === 'block' : specific?.['permissionDecision'] === 'deny' || json['decision'] === 'deny';
  const reason = refused ? String(kind === 'stop' ? json['reason'] : (specific?.['permissionDecisionReason'] ?? json['reason'])) : null;
  return { refused, halted: false, reason, message: typeof json['systemMessage'] === 'string' ? json['systemMessage'] : null };
}

/** An SDK hook callback returns the JSON only; the exit code is not read. */
function readSdk(kind: Kind, out: HookOutput): Reading {
  return readClaudeShaped(kind, { ...out, exitCode: 0 });
}

/** Copilot CLI: JSON on stdout; exit 2 refuses a tool call with no reason and is ignored at agentStop. */
function readCopilot(kind: Kind, out: HookOutput): Reading {
  if (out.exitCode === 2) return kind === 'stop' ? ALLOWED : { ...ALLOWED, refused: true };
  const json = jsonOf(out.stdout);
  if (json === null) return ALLOWED;
  if (kind === 'stop') return json['decision'] === 'block' ? { ...ALLOWED, refused: true, reason: String(json['reason']) } : ALLOWED;
  return json['permissionDecision'] === 'deny' ? { ...ALLOWED, refused: true, reason: String(json['permissionDecisionReason']) } : ALLOWED;
}

/** Cursor: `{"permission": "deny", "agent_message"}` refuses; at `stop` a `followup_message` starts another turn. */
function readCursor(kind: Kind, out: HookOutput): Reading {
  const json = jsonOf(out.stdout);
  if (json === null) return ALLOWED;
  if (kind === 'stop') return typeof json['followup_message'] === 'string' ? { ...ALLOWED, refused: true, reason: json['followup_message'] } : ALLOWED;
  return json['permission'] === 'deny' ? { ...ALLOWED, refused: true, reason: String(json['agent_message']) } : ALLOWED;
}

/** The generated OpenCode plugin: exit 0 lets the call run; anything else throws stderr as the refusal. */
function readOpencode(_kind: Kind, out: HookOutput): Reading {
  return out.exitCode === 0 ? ALLOWED : { ...ALLOWED, refused: true, reason: out.stderr.trim() || null };
}

const READERS: Readonly<Record<AgentName, (kind: Kind, out: HookOutput) => Reading>> = {
  claude: readClaudeShaped,
  qwen: readClaudeShaped,
  'claude-sdk': readSdk,
  gemini: readClaudeShaped,
  copilot: readCopilot,
  cursor: readCursor,
  opencode: readOpencode,
  codex: readClaudeShaped,
};

/** Agents with no way to show an allowed stop's note, and why (named skips of the note check). */
const NO_NOTE_SURFACE: Readonly<Record<string, string>> = {
  copilot: "agentStop's output has only decision and reason; exit 2 there is a block to any version that honours it",
  cursor: 'stop can answer only followup_message, which starts another turn instead of telling the user',
  opencode: 'OpenCode has no stop surface, so no note arises, and its plugin reads only the exit code and stderr',
};

const REASON = 'src/x.ts is outside the allowlist; write under src/ instead';
const NOTE = 'Gatehouse: the task ended UNVERIFIED after 3 refused attempts to finish';
const halt = (rule: string, reason: string): Verdict => ({ decision: 'halt', rule, reason });

describe.each([...AGENT_NAMES])('%s output', (agent) => {
  const hook = hookAdapter(agent)!;
  const read = READERS[agent];
  const kinds: Kind[] = NO_STOP_SURFACE[agent] === undefined ? ['pre_tool', 'stop'] : ['pre_tool'];
  if (!kinds.includes('stop')) it.skip(`at a stop — skipped: ${NO_STOP_SURFACE[agent]}`, () => {});

  describe.each(kinds)('at %s', (kind) => {
    it('lets an allowed action through with nothing to show', () => {
      const out = hook.output(kind, allow('scope.allowed'));
      expect(out.exitCode).toBe(0);
      expect(read(kind, out)).toEqual(ALLOWED);
    });

    it('refuses a block with the reason for the model, never as a silent exit 0', () => {
      const out = hook.output(kind, block('scope.outside', REASON));
      expect(out.exitCode === 0 && out.stdout === '' && out.stderr === '').toBe(false);
      const r = read(kind, out);
      expect(r.refused).toBe(true);
      expect(r.halted).toBe(false);
      // Copilot's exit 2 would carry no reason; its JSON deny does, and that is what it must use.
      expect(r.reason).toContain(REASON);
    });

    it('ends the run on a halt where the agent honours one, and otherwise refuses (never weaker than a block)', () => {
      const out = hook.output(kind, halt('loop.halt', REASON));
      const r = read(kind, out);
      if (adapterFor(agent)!.capabilities.halt.level === 'blocking') expect(r).toMatchObject({ halted: true, reason: REASON });
      else expect(r).toMatchObject({ refused: true, halted: false, reason: expect.stringContaining(REASON) as unknown });
    });
  });

  const noNote = NO_NOTE_SURFACE[agent];
  if (noNote !== undefined) {
    it.skip(`shows the user an unverified stop's note — skipped: ${noNote}`, () => {});
    it('still lets an unverified stop end (the note is dropped, not turned into a refusal)', () => {
      const kind: Kind = kinds.includes('stop') ? 'stop' : 'pre_tool';
      const r = read(kind, hook.output(kind, allow('completion.unverified', NOTE)));
      expect(r).toMatchObject({ refused: false, halted: false });
    });
  } else {
    it("shows the user an unverified stop's note and lets the turn end", () => {
      const out = hook.output('stop', allow('completion.unverified', NOTE));
      expect(out.exitCode).toBe(0);
      expect(read('stop', out)).toEqual({ ...ALLOWED, message: NOTE });
    });
  }
});
