// The build's bundles carry no import that nothing uses: rollup reports each one as
// "… is imported from external module … but never used", so the build must print none.
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/cli.js';

describe('npm run build', () => {
  it('prints no "imported but never used" warning for the CLI or the hook bundle', () => {
    const dir = tempDir('gh-build-');
    // The project's own tsup config, built into a temp folder; type declarations bundle no code.
    // The wrapper lives under node_modules/.cache: tsup bundles it beside itself and must resolve `tsup` from there.
    const cache = resolve('node_modules', '.cache', 'gatehouse-build-test');
    mkdirSync(cache, { recursive: true });
    const config = join(cache, `tsup.config.${process.pid}.ts`);
    writeFileSync(
      config,
      [
        `import configs from ${JSON.stringify(resolve('tsup.config.ts'))};`,
        `export default configs.map((c) => ({ ...c, dts: false, onSuccess: undefined, outDir: ${JSON.stringify(dir)} + '/' + (c.outDir ?? 'dist') }));`,
      ].join('\n'),
    );
    const r = spawnSync(process.execPath, ['node_modules/tsup/dist/cli-default.js', '--config', config], { encoding: 'utf8', timeout: 170_000 });
    rmSync(config, { force: true });
    const printed = `${r.stdout}\n${r.stderr}`;
    expect(printed).toContain('Build success');
    expect(r.status).toBe(0);
    expect(printed.split('\n').filter((l) => /never used/.test(l))).toEqual([]);
  }, 180_000);
});
