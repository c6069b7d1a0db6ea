import { copyFileSync, writeFileSync } from 'node:fs';
import { defineConfig } from 'tsup';

// Apart on purpose: the hook runs on every tool call and must load nothing but itself (no CLI
// framework, no YAML/TOML parser, no schema library); its scripts are built by scripts/build-hook.mjs.
export default defineConfig([
  {
    // The parallel audit verifies' worker threads (file log, team log) sit beside the chunk that starts them.
    entry: { cli: 'src/cli/main.ts', index: 'src/index.ts', 'audit-verify-worker': 'src/runtime/audit/verify-worker.ts', 'team-verify-worker': 'src/runtime/store/pg-audit-verify-worker.ts' },
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
    // The command the agent runs (`node dist/hook/hook.js …`): loads the hook's scripts through the
    // code cache (the scripts themselves are built by scripts/build-hook.mjs).
    // CommonJS, like everything in dist/hook but the gate worker (.mjs): an ES module entry would
    // make Node load its ES module loader (and fs/promises, readline…) in every hook process.
    entry: { hook: 'src/cli/hook-loader.ts' },
    format: ['cjs'],
    outExtension: () => ({ js: '.js' }),
    target: 'node20',
    platform: 'node',
    noExternal: [/.*/],
    outDir: 'dist/hook',
    treeshake: true,
    minify: true,
    removeNodeProtocol: false,
    sourcemap: false,
    clean: false,
    // The warm transport's bash client ships beside the hook bundle it falls back to, and the
    // sandboxed sessions' socket client beside it.
    onSuccess: async () => {
      copyFileSync('src/cli/warm-hook.sh', 'dist/hook/warm.sh');
      copyFileSync('src/cli/socket-hook.pl', 'dist/hook/socket-hook.pl');
      writeFileSync('dist/hook/package.json', '{ "type": "commonjs" }\n');
    },
  },
  {
    // The gate for long-lived hosts, in a worker thread: its own file, so the hook bundle's
    // chunks stay exactly what an allowed PreToolUse call loads.
    entry: { 'gate-worker': 'src/gate/worker-main.ts' },
    format: ['esm'],
    // .mjs: dist/hook is CommonJS (its package.json), for the hook's sake.
    outExtension: () => ({ js: '.mjs' }),
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
