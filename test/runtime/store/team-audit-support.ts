// Shared setup for the team audit tests: a project state folder on a "machine" (its own
// GATEHOUSE_HOME), a link context for it, emptying the team log, and a bundled child process.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GENESIS_HASH } from '../../../src/runtime/audit/record.js';
import type { LinkContext } from '../../../src/runtime/store/link-part.js';
import { thisMachine } from '../../../src/runtime/store/machine.js';
import type { PgStore } from '../../../src/runtime/store/pg-connect.js';
import { bundleFixture } from '../../support/bundle-fixture.js';

/** One machine's project: its state base (machine id) and the project's state folder. */
export interface TestMachine {
  home: string;
  state: string;
  project: string;
}

/** A fresh machine with one project. */
export function tempMachine(name = 'app'): TestMachine {
  const home = mkdtempSync(join(tmpdir(), 'gh-team-machine-'));
  const state = join(home, 'projects', `${name}-0123456789abcdef`);
  mkdirSync(join(state, 'audit'), { recursive: true });
  return { home, state, project: `${name}-0123456789abcdef` };
}

/** The link context a host would build for `m`; warnings are collected in `warnings`. */
export function contextFor(store: PgStore, m: TestMachine, warnings: string[] = []): LinkContext {
  return { store, machine: thisMachine({ GATEHOUSE_HOME: m.home }), projectState: m.state, projectKey: m.project, worktree: m.state, warn: (w) => warnings.push(w) };
}

/** Empties the team log (rows, checkpoints, halts) and resets its head. */
export async function resetTeamAudit(store: PgStore): Promise<void> {
  await store.pool.query('TRUNCATE gh_audit_events, gh_audit_checkpoints, gh_audit_halts');
  await store.pool.query(`UPDATE gh_audit_head SET size = 0, last_hash = $1, frontier = '\\x'::bytea, checkpoint_size = 0, checkpoint_at = NULL WHERE id = 1`, [GENESIS_HASH]);
}

/** Bundles fixtures/forward-child.ts with the driver into one .mjs in `dir`. */
export function bundleForwardChild(dir: string): string {
  return bundleFixture('test/runtime/store/fixtures/forward-child.ts', dir, 'forward-child');
}

/** Starts a child "machine" that appends `count` events to its local log while its link forwards them. */
export function spawnForwarder(script: string, m: TestMachine, count: number, env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, [script, m.state, m.project, String(count)], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env, GATEHOUSE_HOME: m.home } });
}
