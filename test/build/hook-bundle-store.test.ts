// Hooks never connect to the team store (docs/teams.md "Who talks to the database"): the built hook
// bundle holds neither the PostgreSQL driver nor any of the store's modules.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const HOOK_DIR = resolve('dist/hook');

describe.skipIf(!existsSync(HOOK_DIR))('the hook bundle and the team store', () => {
  it('imports no pg driver and carries none of the store code (its tables, its link)', () => {
    const files = readdirSync(HOOK_DIR).filter((n) => /\.(m?js)$/.test(n));
    expect(files.length).toBeGreaterThan(0);
    for (const name of files) {
      const text = readFileSync(join(HOOK_DIR, name), 'utf8');
      expect(text, name).not.toMatch(/from\s*["']pg["']|import\(\s*["']pg["']\s*\)|require\(\s*["']pg["']\s*\)/);
      expect(text, name).not.toMatch(/gh_sessions|gh_evidence|gh_meta|pg_advisory_xact_lock/);
    }
  });
});
