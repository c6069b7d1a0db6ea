// The layer rules of eslint.config.js hold at every folder depth: an import that crosses a
// layer the wrong way is an error from src/core/shell/ as much as from src/core/.
import { ESLint } from 'eslint';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

type Entry = { files?: string[]; rules?: Record<string, unknown>; languageOptions?: unknown };

/** Only the entries that restrict imports (no type information needed), with the TypeScript parser. */
async function layerLinter(): Promise<ESLint> {
  // eslint.config.js is plain JavaScript: loaded at run time, its shape checked by use.
  const { default: config } = (await import(resolve('eslint.config.js'))) as { default: Entry[] };
  const entries = config.filter((e) => e.files !== undefined && e.rules?.['no-restricted-imports'] !== undefined).map((e) => ({ files: e.files, rules: { 'no-restricted-imports': e.rules!['no-restricted-imports'] } }));
  const tseslint = await import('typescript-eslint');
  return new ESLint({ cwd: resolve('.'), overrideConfigFile: true, overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser as never } }, ...entries] as never });
}

async function errors(file: string, code: string): Promise<string[]> {
  const [result] = await (await layerLinter()).lintText(code, { filePath: resolve(file) });
  return (result?.messages ?? []).map((m) => m.message);
}

describe('layer rules', () => {
  it('refuse a wrong-way import at any depth', async () => {
    for (const [file, spec] of [
      ['src/core/x.ts', '../runtime/fs-atomic.js'],
      ['src/core/shell/x.ts', '../../runtime/fs-atomic.js'],
      ['src/core/turn/deep/x.ts', '../../../adapters/registry.js'],
      ['src/runtime/sandbox/x.ts', '../../adapters/registry.js'],
      ['src/adapters/x.ts', '../cli/main.js'],
      ['src/adapters/claude/x.ts', '../../gateway/server.js'],
      ['src/gateway/ws/x.ts', '../../cli/main.js'],
      ['src/adapters/x.ts', '../gate/hook-gate.js'],
      ['src/adapters/codex/x.ts', '../../gate/pre-tool.js'],
      ['src/runtime/x.ts', '../gate/stop-chain.js'],
      ['src/gate/x.ts', '../gateway/server.js'],
      ['src/gate/deep/x.ts', '../../cli/main.js'],
    ] as const) {
      expect(await errors(file, `import { a } from '${spec}';\nexport const b = a;\n`), `${file} → ${spec}`).toEqual([expect.stringContaining('is restricted')]);
    }
  });

  it('allow the imports the layers permit', async () => {
    for (const [file, spec] of [
      ['src/core/shell/x.ts', '../approvals/decide.js'],
      ['src/runtime/sandbox/x.ts', '../../core/sandbox.js'],
      ['src/adapters/claude/x.ts', '../../runtime/fs-atomic.js'],
      ['src/gateway/ws/x.ts', '../../adapters/registry.js'],
      ['src/gateway/x.ts', '../gate/hook-gate.js'],
      ['src/gate/x.ts', '../adapters/registry.js'],
    ] as const) {
      expect(await errors(file, `import { a } from '${spec}';\nexport const b = a;\n`), `${file} → ${spec}`).toEqual([]);
    }
  });
});
