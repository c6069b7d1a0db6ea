// Hooks never connect to the team store (docs/teams.md "Who talks to the database"): neither the
// hook's inputs nor the built hook bundle hold the PostgreSQL driver or any of the store's modules.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildSync } from 'esbuild';
import { describe, expect, it } from 'vitest';

const HOOK_DIR = resolve('dist/hook');

describe('the hook bundle and the team store', () => {
  it('bundles neither the PostgreSQL driver nor any team-store module: hooks never connect to the database', () => {
    // The hook's entry as tsup bundles it (everything inlined), written nowhere: only its inputs are read.
    const r = buildSync({ entryPoints: ['src/cli/hook-main.ts'], bundle: true, platform: 'node', format: 'cjs', target: 'node20', write: false, metafile: true, logLevel: 'silent', outdir: 'out' });
    const inputs = Object.keys(r.metafile.inputs);
    expect(inputs.some((f) => f.startsWith('src/runtime/approvals/'))).toBe(true);
    expect(inputs.filter((f) => f.startsWith('src/runtime/store/') || /node_modules\/(pg|pg-[a-z-]+)\//.test(f))).toEqual([]);
  });

  it.skipIf(!existsSync(HOOK_DIR))('the built files import no pg driver and carry none of the store code (its tables, its link)', () => {
    const files = readdirSync(HOOK_DIR).filter((n) => /\.(m?js|cjs)$/.test(n));
    expect(files.length).toBeGreaterThan(0);
    for (const name of files) {
      const text = readFileSync(join(HOOK_DIR, name), 'utf8');
      expect(text, name).not.toMatch(/from\s*["']pg["']|import\(\s*["']pg["']\s*\)|require\(\s*["']pg["']\s*\)/);
      expect(text, name).not.toMatch(/gh_sessions|gh_evidence|gh_approvals|gh_audit|gh_meta|pg_advisory_xact_lock/);
    }
  });
});
