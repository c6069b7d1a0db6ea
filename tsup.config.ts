import { createHash } from 'node:crypto';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { defineConfig } from 'tsup';

// Two entry points on purpose: the hook bundle runs on every tool call and must
// load nothing but itself (no CLI framework, no YAML/TOML parser, no schema library).
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
    // The hook itself, as one CommonJS file: the entry below runs it through V8's code cache
    // (node:vm), which only scripts have; an ES module could not be cached on Node 20.
    entry: { 'hook-body': 'src/cli/hook-main.ts' },
    format: ['cjs'],
    target: 'node20',
    platform: 'node',
    // Everything the hook needs is inlined so that Node resolves one file and nothing else; code
    // only the block and Stop paths need (audit log, evidence, keys) is still imported lazily:
    // it stays uncompiled until a call needs it.
    noExternal: [/.*/],
    outDir: 'dist/hook',
    // esbuild's own tree shaking: tsup's (rollup) would hoist every built-in's require to the top,
    // so an allowed call would load child_process, net and streams that only a Stop needs.
    treeshake: false,
    minify: true,
    // As above: without it, the bundle kept requires of built-ins that only unused code needed.
    removeNodeProtocol: false,
    sourcemap: false,
    clean: false,
    // The loader names the code cache by this digest of the bundle, so that it need not hash 300 KB itself.
    // The bundle must be ASCII: the loader then reads it as a one-byte string (a single non-ASCII
    // character makes V8 hold all 300 KB as two-byte, about 3 ms more per hook call on 2 cores).
    onSuccess: async () => {
      const body = readFileSync('dist/hook/hook-body.cjs');
      const at = body.findIndex((b) => b > 0x7f);
      if (at >= 0)
        throw new Error(
          `dist/hook/hook-body.cjs is not ASCII at byte ${at}: ${JSON.stringify(body.subarray(Math.max(0, at - 60), at + 20).toString('utf8'))}; escape the character in the source (\\uXXXX)`,
        );
      const digest = createHash('sha256').update(body).digest('hex');
      writeFileSync('dist/hook/hook-body.cjs.sha256', `${digest}\n`);
    },
  },
  {
    // The command the agent runs (`node dist/hook/hook.js …`): loads hook-body.cjs through the cache.
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
