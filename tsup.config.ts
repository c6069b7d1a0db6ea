import { copyFileSync } from 'node:fs';
import { defineConfig } from 'tsup';

// Two entry points on purpose: the hook bundle runs on every tool call and must
// load nothing but itself (no CLI framework, no YAML/TOML parser, no schema library).
export default defineConfig([
  {
    entry: { cli: 'src/cli/main.ts', index: 'src/index.ts' },
    format: ['esm'],
    target: 'node20',
    platform: 'node',
    dts: { entry: { index: 'src/index.ts' } },
    sourcemap: false,
    clean: false,
    // Keep `node:` specifiers: esbuild then knows these are built-ins with no side effects and
    // drops the imports nothing uses, instead of keeping them as an unknown module's.
    removeNodeProtocol: false,
    banner: { js: '#!/usr/bin/env node' },
  },
  {
    entry: { hook: 'src/cli/hook-main.ts' },
    format: ['esm'],
    target: 'node20',
    platform: 'node',
    // Everything the hook needs is inlined so that Node resolves one file and nothing else.
    noExternal: [/.*/],
    // Code only the block and Stop paths need (audit log, evidence, keys) goes to chunks
    // that an allowed PreToolUse call never loads.
    splitting: true,
    outDir: 'dist/hook',
    treeshake: true,
    minify: true,
    // As above: without it, every chunk kept imports of built-ins that only unused code needed.
    removeNodeProtocol: false,
    sourcemap: false,
    clean: false,
    // The warm transport's bash client ships beside the hook bundle it falls back to, and the
    // sandboxed sessions' socket client beside it.
    onSuccess: async () => {
      copyFileSync('src/cli/warm-hook.sh', 'dist/hook/warm.sh');
      copyFileSync('src/cli/socket-hook.pl', 'dist/hook/socket-hook.pl');
    },
  },
  {
    // The gate for long-lived hosts, in a worker thread: its own file, so the hook bundle's
    // chunks stay exactly what an allowed PreToolUse call loads.
    entry: { 'gate-worker': 'src/gate/worker-main.ts' },
    format: ['esm'],
    target: 'node20',
    platform: 'node',
    noExternal: [/.*/],
    outDir: 'dist/hook',
    treeshake: true,
    minify: true,
    removeNodeProtocol: false,
    sourcemap: false,
    clean: false,
  },
]);
