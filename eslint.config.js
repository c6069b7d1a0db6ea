import { builtinModules } from 'node:module';
import js from '@eslint/js';
import importX, { createNodeResolver } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

// Every built-in Node module, so the `node:` prefix rule covers them all rather than a hand-kept few.
const escapeRegex = (text) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const NODE_BUILTIN = builtinModules
  .filter((name) => !name.startsWith('_'))
  .map(escapeRegex)
  .join('|');
const NODE_PREFIX = { regex: `^(${NODE_BUILTIN})(/|$)`, message: "Import Node built-ins with the 'node:' prefix." };

// The layers, each with the layers it may import (itself included). An import is judged by the file
// it resolves to, so a layer's rule holds at every folder depth and for dynamic import() too.
const LAYER_IMPORTS = {
  core: { may: ['core'], why: 'core/ is pure and imports nothing of our other layers.' },
  protocol: { may: ['protocol', 'core'], why: 'protocol/ imports only core/ and its own files: the server depends on it, never the other way.' },
  runtime: { may: ['runtime', 'core', 'protocol'], why: 'runtime/ depends only on core/ and protocol/.' },
  adapters: {
    may: ['adapters', 'runtime', 'core', 'protocol'],
    why: 'adapters/ depend on runtime/, core/ and protocol/ only: the agent-neutral hook flow (gate/) uses them, never the other way.',
  },
  gate: {
    may: ['gate', 'adapters', 'runtime', 'core', 'protocol'],
    why: 'gate/ depends on adapters/, runtime/, core/ and protocol/; its transports (the hook command, the warm route, the socket) call it.',
  },
  gateway: {
    may: ['gateway', 'gate', 'adapters', 'runtime', 'core', 'protocol'],
    why: 'gateway/ depends on gate/, adapters/, runtime/, core/ and protocol/ (the dashboard is served as built files, not imported).',
  },
  cli: { may: ['cli', 'gateway', 'tui', 'gate', 'adapters', 'runtime', 'core', 'protocol'], why: 'cli/ does not import web/: the dashboard is a browser bundle, served as built files.' },
  tui: { may: ['tui', 'cli', 'gateway', 'gate', 'adapters', 'runtime', 'core', 'protocol'], why: 'tui/ does not import web/: the dashboard is a browser bundle, served as built files.' },
};
const LAYERS = [...Object.keys(LAYER_IMPORTS), 'web'];
const layerZones = [
  ...Object.entries(LAYER_IMPORTS).map(([layer, { may, why }]) => ({
    target: `src/${layer}`,
    from: LAYERS.filter((other) => !may.includes(other)).map((other) => `src/${other}`),
    message: why,
  })),
  {
    // The package entry re-exports the layers for library users; a layer importing it would import them all.
    target: LAYERS.map((layer) => `src/${layer}`),
    from: ['src/index.ts'],
    message: 'src/index.ts is the package entry: import the file that defines the name.',
  },
];

// The protocol files the dashboard may take values from: they hold no zod schema. A new protocol file
// is type-only to the dashboard until it is added here.
const ZOD_FREE_PROTOCOL = ['binary-output.ts', 'close-codes.ts', 'flow-control.ts', 'json-rpc-peer.ts', 'rpc-errors.ts', 'pty-states.ts'];
// The dashboard is a browser bundle: values from protocol/'s zod-free files, types from anywhere.
// core/ is not listed: the dashboard takes values from it today (argv, program-of, redact-argv,
// approvals/always-scope), which the layer map in docs/architecture.md does not foresee.
const webZones = [
  {
    target: 'src/web',
    from: ['src/protocol'],
    except: ZOD_FREE_PROTOCOL,
    message: `These protocol files hold zod schemas: import their types only (\`import type\`), and values from the zod-free files (${ZOD_FREE_PROTOCOL.map((f) => f.replace(/\.ts$/, '')).join(', ')}).`,
  },
  {
    target: 'src/web',
    from: ['src/runtime', 'src/adapters', 'src/gate', 'src/gateway', 'src/cli', 'src/tui'],
    message: 'web/ runs in the browser: take only types (`import type`) from the server layers.',
  },
];

// import-x's no-restricted-paths judges type imports as well; the dashboard's rule must let them
// through, because a type import is erased and never reaches the browser bundle.
const restrictedPaths = importX.rules['no-restricted-paths'];
const isTypeOnly = (node) => node.importKind === 'type' || node.exportKind === 'type';
const noRestrictedValuePaths = {
  meta: restrictedPaths.meta,
  create(context) {
    const visitors = restrictedPaths.create(context);
    const valuesOnly = (name) => (node) => (isTypeOnly(node) ? undefined : visitors[name]?.(node));
    const declarations = ['ImportDeclaration', 'ExportNamedDeclaration', 'ExportAllDeclaration', 'TSImportEqualsDeclaration'];
    return { ...visitors, ...Object.fromEntries(declarations.map((name) => [name, valuesOnly(name)])) };
  },
};

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'bench/results.json'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-syntax': ['error', { selector: 'ExportDefaultDeclaration', message: 'Use named exports.' }],
      'no-restricted-imports': ['error', { patterns: [NODE_PREFIX] }],
    },
  },
  {
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    plugins: { 'import-x': importX, gatehouse: { rules: { 'no-restricted-value-paths': noRestrictedValuePaths } } },
    settings: {
      // Our sources import `./x.js` for the file `x.ts` (NodeNext), so `.js` also looks for `.ts`/`.tsx`.
      'import-x/resolver-next': [createNodeResolver({ extensionAlias: { '.js': ['.ts', '.tsx', '.js'] } })],
    },
    rules: {
      'import-x/no-restricted-paths': ['error', { basePath: import.meta.dirname, zones: layerZones }],
      'gatehouse/no-restricted-value-paths': ['error', { basePath: import.meta.dirname, zones: webZones }],
      // The path rules skip an import they cannot resolve, so every import must resolve.
      'import-x/no-unresolved': 'error',
      // `./../runtime/x.js` reads as a sibling but is not one: keep specifiers in their plain form.
      'import-x/no-useless-path-segments': 'error',
    },
  },
  {
    // core is pure: no I/O, no clock, no env.
    files: ['src/core/**/*.ts', 'src/core/**/*.tsx'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            NODE_PREFIX,
            {
              regex: '^node:(fs|child_process|net|http|https|http2|tls|dgram|dns|readline|cluster|inspector|os|process|worker_threads)(/|$)',
              message: 'core/ does no I/O; pass what it needs in.',
            },
          ],
        },
      ],
    },
  },
  {
    // protocol is the wire contract the browser bundles too; the dashboard is the browser itself.
    files: ['src/protocol/**/*.ts', 'src/web/**/*.ts'],
    rules: { 'import-x/no-nodejs-modules': 'error' },
  },
  {
    // The dashboard takes only types from the protocol's schemas, so the schema library stays out of its bundle.
    files: ['src/web/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: [{ regex: '^zod(/|$)', message: 'Keep zod out of the browser bundle: check frames by hand in web/wire.ts.' }] }],
    },
  },
  {
    // Tool config files must default-export by the tools' own convention.
    files: ['*.config.ts'],
    rules: { 'no-restricted-syntax': 'off' },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        global: 'readonly',
      },
    },
  },
);
