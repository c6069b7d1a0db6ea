// The contract every registered adapter keeps, checked for all of them in one loop (in the
// manner of Hono's common.case.test.ts): one list of agents, and per agent the same checks.
import { describe, expect, it } from 'vitest';
import { AGENT_NAMES, hookAdapter } from '../../src/adapters/hook-adapters.js';
import { adapterFor, knownAgents } from '../../src/adapters/registry.js';

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
  });
});
