// The contract every registered adapter keeps, checked for all of them in one loop (in the
// manner of Hono's common.case.test.ts): one list of agents, and per agent the same checks.
import { describe, expect, it } from 'vitest';
import { AGENT_NAMES, hookAdapter } from '../../src/adapters/hook-adapters.js';
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
