// The layer rules in eslint.config.js fire: each layer's forbidden imports are reported and its allowed
// ones are not, for a file at the top of the layer and for one three folders down.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { posix } from 'node:path';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

// The rules that judge imports. The others are left out: the typed ones need the project service,
// which refuses the probe files because they exist only as the text handed to lintText.
const IMPORT_RULES = new Set([
  'no-restricted-imports',
  '@typescript-eslint/no-restricted-imports',
  'import-x/no-restricted-paths',
  'gatehouse/no-restricted-value-paths',
  'import-x/no-nodejs-modules',
  'import-x/no-unresolved',
  'import-x/no-useless-path-segments',
]);

type Layer = 'core' | 'protocol' | 'runtime' | 'adapters' | 'gate' | 'gateway' | 'cli' | 'tui' | 'web';

// One real file in each layer for a probe to import: the path rules judge the file an import resolves to.
const TARGET: Record<Layer, string> = {
  core: 'src/core/argv.ts',
  protocol: 'src/protocol/close-codes.ts',
  runtime: 'src/runtime/keys.ts',
  adapters: 'src/adapters/adapter.ts',
  gate: 'src/gate/hook-gate.ts',
  gateway: 'src/gateway/index.ts',
  cli: 'src/cli/main.ts',
  tui: 'src/tui/index.ts',
  web: 'src/web/format.ts',
};
const LAYERS = Object.keys(TARGET) as Layer[];

// What each layer may import as a value (itself included); written out here, apart from the config, so
// the test states the layering rather than repeating the config's own table.
const MAY_IMPORT: Record<Layer, Layer[]> = {
  core: ['core'],
  protocol: ['protocol', 'core'],
  runtime: ['runtime', 'core', 'protocol'],
  adapters: ['adapters', 'runtime', 'core', 'protocol'],
  gate: ['gate', 'adapters', 'runtime', 'core', 'protocol'],
  gateway: ['gateway', 'gate', 'adapters', 'runtime', 'core', 'protocol'],
  cli: ['cli', 'gateway', 'tui', 'gate', 'adapters', 'runtime', 'core', 'protocol'],
  tui: ['tui', 'cli', 'gateway', 'gate', 'adapters', 'runtime', 'core', 'protocol'],
  // The dashboard takes values from core today, which the layer map does not foresee; see eslint.config.js.
  web: ['web', 'core', 'protocol'],
};

const DEPTHS = { 'the top of the layer': '', 'three folders down': 'deep/er/' } as const;

let eslint: ESLint;
beforeAll(() => {
  for (const file of Object.values(TARGET)) expect(existsSync(posix.join(ROOT, file)), file).toBe(true);
  eslint = new ESLint({
    cwd: ROOT,
    overrideConfig: { languageOptions: { parserOptions: { projectService: false } } },
    ruleFilter: ({ ruleId }) => IMPORT_RULES.has(ruleId),
  });
});

/** The import-rule findings for `code` as if it were the file `file` (relative to the repository root). */
async function lint(file: string, code: string): Promise<{ ruleId: string | null; message: string }[]> {
  const [result] = await eslint.lintText(code, { filePath: posix.join(ROOT, file) });
  return (result?.messages ?? []).map(({ ruleId, message }) => ({ ruleId, message }));
}

/** The specifier a file at `from` writes to import `to`, NodeNext style (`.js` for a `.ts` file). */
function specifier(from: string, to: string): string {
  const relative = posix.relative(posix.dirname(from), to).replace(/\.tsx?$/, '.js');
  return relative.startsWith('.') ? relative : `./${relative}`;
}

const valueImport = (spec: string): string => `import * as probe from '${spec}';\nexport const used = probe;\n`;
const typeImport = (spec: string): string => `import type * as probe from '${spec}';\nexport type Used = typeof probe;\n`;

describe.each(Object.entries(DEPTHS))('at %s', (_depth, folders) => {
  const probeIn = (layer: Layer): string => `src/${layer}/${folders}probe.ts`;

  describe.each(LAYERS)('a file in %s/', (layer) => {
    const file = probeIn(layer);
    const forbidden = LAYERS.filter((other) => !MAY_IMPORT[layer].includes(other));
    const allowed = MAY_IMPORT[layer].filter((other) => !(layer === 'web' && other === 'protocol'));

    it.each(allowed)('may import %s/', async (other) => {
      expect(await lint(file, valueImport(specifier(file, TARGET[other])))).toEqual([]);
    });

    it.each(forbidden)('is refused a value import from %s/', async (other) => {
      const findings = await lint(file, valueImport(specifier(file, TARGET[other])));
      expect(findings.map((f) => f.ruleId)).toEqual([layer === 'web' ? 'gatehouse/no-restricted-value-paths' : 'import-x/no-restricted-paths']);
    });

    if (layer === 'web') {
      it.each(forbidden)('may import types from %s/', async (other) => {
        expect(await lint(file, typeImport(specifier(file, TARGET[other])))).toEqual([]);
      });
    } else {
      it.each(forbidden)('is refused a type import from %s/ too', async (other) => {
        const findings = await lint(file, typeImport(specifier(file, TARGET[other])));
        expect(findings.map((f) => f.ruleId)).toEqual(['import-x/no-restricted-paths']);
      });
    }

    it('is refused the package entry', async () => {
      const findings = await lint(file, valueImport(specifier(file, 'src/index.ts')));
      expect(findings.map((f) => f.message)).toEqual([expect.stringContaining('src/index.ts is the package entry')]);
    });

    it("is refused a bare Node built-in: it must carry the 'node:' prefix", async () => {
      const findings = await lint(file, valueImport('path'));
      expect(findings.map((f) => f.message)).toContainEqual(expect.stringContaining("with the 'node:' prefix"));
    });

    it('is refused an import that does not resolve, so no path rule can skip it', async () => {
      const findings = await lint(file, valueImport(specifier(file, 'src/no-such-layer/missing.ts')));
      expect(findings.map((f) => f.ruleId)).toEqual(['import-x/no-unresolved']);
    });
  });

  it('refuses a dynamic import() across a layer as a static one', async () => {
    const file = probeIn('gate');
    const findings = await lint(file, `export const cli = await import('${specifier(file, TARGET.cli)}');\n`);
    expect(findings.map((f) => f.ruleId)).toEqual(['import-x/no-restricted-paths']);
  });

  it('refuses I/O modules in core/ and lets the hashing one through', async () => {
    const file = probeIn('core');
    for (const io of ['node:fs', 'node:fs/promises', 'node:child_process', 'node:os', 'node:net']) {
      expect(
        (await lint(file, valueImport(io))).map((f) => f.message),
        io,
      ).toEqual([expect.stringContaining('core/ does no I/O')]);
    }
    expect(await lint(file, valueImport('node:crypto'))).toEqual([]);
  });

  it('lets runtime/ use Node I/O modules', async () => {
    expect(await lint(probeIn('runtime'), valueImport('node:fs'))).toEqual([]);
  });

  it.each(['protocol', 'web'] as const)('refuses any Node module in %s/, types included', async (layer) => {
    expect((await lint(probeIn(layer), valueImport('node:buffer'))).map((f) => f.ruleId)).toEqual(['import-x/no-nodejs-modules']);
    expect((await lint(probeIn(layer), typeImport('node:events'))).map((f) => f.ruleId)).toEqual(['import-x/no-nodejs-modules']);
  });

  it('lets protocol/ use zod and refuses zod to web/', async () => {
    expect(await lint(probeIn('protocol'), valueImport('zod'))).toEqual([]);
    const findings = await lint(probeIn('web'), valueImport('zod'));
    expect(findings.map((f) => f.message)).toEqual([expect.stringContaining('Keep zod out of the browser bundle')]);
  });

  it('gives web/ values only from the zod-free protocol files, and types from all of them', async () => {
    const file = probeIn('web');
    for (const zodFree of ['close-codes', 'flow-control', 'rpc-errors', 'pty-states']) {
      expect(await lint(file, valueImport(specifier(file, `src/protocol/${zodFree}.ts`))), zodFree).toEqual([]);
    }
    for (const schemas of ['index', 'pty', 'approvals', 'events', 'rpc-error-schema']) {
      const spec = specifier(file, `src/protocol/${schemas}.ts`);
      expect(
        (await lint(file, valueImport(spec))).map((f) => f.message),
        schemas,
      ).toEqual([expect.stringContaining('hold zod schemas')]);
      expect(await lint(file, typeImport(spec)), schemas).toEqual([]);
    }
  });

  it("refuses a web/ value import written 'import { type X }': it still loads the module", async () => {
    const file = probeIn('web');
    const findings = await lint(file, `import { type PtyInfo } from '${specifier(file, 'src/protocol/pty.ts')}';\nexport type Used = PtyInfo;\n`);
    expect(findings.map((f) => f.ruleId)).toEqual(['gatehouse/no-restricted-value-paths']);
  });

  it('refuses a specifier that detours out of its folder and back', async () => {
    const file = probeIn('web');
    const detour = `${posix.relative(posix.dirname(file), 'src')}/web/format.js`;
    expect(await lint(file, valueImport(specifier(file, TARGET.web)))).toEqual([]);
    expect((await lint(file, valueImport(detour))).map((f) => f.ruleId)).toEqual(['import-x/no-useless-path-segments']);
  });
});
