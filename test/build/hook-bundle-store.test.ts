import { buildSync } from 'esbuild';
import { describe, expect, it } from 'vitest';

describe('the hook bundle and the team store', () => {
  it('bundles neither the PostgreSQL driver nor any team-store module: hooks never connect to the database', () => {
    // The hook's entry as tsup bundles it (everything inlined), written nowhere: only its inputs are read.
    const r = buildSync({ entryPoints: ['src/cli/hook-main.ts'], bundle: true, platform: 'node', format: 'cjs', target: 'node20', write: false, metafile: true, logLevel: 'silent', outdir: 'out' });
    const inputs = Object.keys(r.metafile.inputs);
    expect(inputs.some((f) => f.startsWith('src/runtime/approvals/'))).toBe(true);
    expect(inputs.filter((f) => f.startsWith('src/runtime/store/') || /node_modules\/(pg|pg-[a-z-]+)\//.test(f))).toEqual([]);
  });
});
