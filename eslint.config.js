import js from '@eslint/js';
import tseslint from 'typescript-eslint';

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
      'no-restricted-syntax': [
        'error',
        { selector: 'ExportDefaultDeclaration', message: 'Use named exports.' },
      ],
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: '^(fs|path|child_process|os|crypto|url|util|events|stream|net|http)$', message: "Import Node built-ins with the 'node:' prefix." }] },
      ],
    },
  },
  {
    // core is pure: no I/O, no clock, no env, and nothing of our other layers.
    files: ['src/core/**/*.ts', 'src/core/**/*.tsx'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: '^node:(fs|fs/promises|child_process|net|http|https|os|process|worker_threads)$', message: 'core/ does no I/O; pass what it needs in.' },
            { regex: '^(\\.\\./)+(runtime|adapters|gate|cli|gateway|tui|web)(/|$)', message: 'core/ imports nothing of our other layers.' },
          ],
        },
      ],
    },
  },
  {
    // protocol is the wire contract the browser bundles too: no Node, nothing of the server.
    files: ['src/protocol/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: '^node:', message: 'protocol/ runs in the browser too: no Node modules.' },
            { regex: '^(fs|path|child_process|os|crypto|url|util|events|stream|net|http|https|buffer|process|worker_threads)(/|$)', message: 'protocol/ runs in the browser too: no Node modules.' },
            { regex: '^\\.\\./(runtime|adapters|gate|cli|gateway|tui|web)(/|$)', message: 'protocol/ imports only core/ and its own files: the server depends on it, never the other way.' },
          ],
        },
      ],
    },
  },
  {
    // The dashboard takes only types from the protocol's schemas, so the schema library stays out of its bundle.
    files: ['src/web/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: '^zod(/|$)', message: 'Keep zod out of the browser bundle: check frames by hand in web/wire.ts.' },
            {
              regex: '^\\.\\./protocol/(index|pty|approvals|events|rpc-error-schema)(\\.js)?$',
              allowTypeImports: true,
              message: 'These protocol files hold zod schemas: import their types only (`import type`), and values from the zod-free files (close-codes, flow-control, json-rpc-peer, rpc-errors, pty-states).',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/runtime/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: '^(\\.\\./)+(adapters|gate|cli|gateway|tui|web)(/|$)', message: 'runtime/ depends only on core/.' }] },
      ],
    },
  },
  {
    files: ['src/adapters/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: '^(\\.\\./)+(gate|cli|gateway|tui|web)(/|$)', message: 'adapters/ depend on runtime/ and core/ only: the agent-neutral hook flow (gate/) uses them, never the other way.' }] },
      ],
    },
  },
  {
    // The agent-neutral hook flow: one decision per hook call, whatever agent or transport.
    files: ['src/gate/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: '^(\\.\\./)+(cli|gateway|tui|web)(/|$)', message: 'gate/ depends on adapters/, runtime/ and core/; its transports (the hook command, the warm route, the socket) call it.' }] },
      ],
    },
  },
  {
    files: ['src/gateway/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: '^(\\.\\./)+(cli|tui|web)(/|$)', message: 'gateway/ depends on gate/, adapters/, runtime/ and core/ (the dashboard is served as built files, not imported).' }] },
      ],
    },
  },
  {
    // Tool config files must default-export by the tools' own convention.
    files: ['*.config.ts'],
    rules: { 'no-restricted-syntax': 'off' },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', Buffer: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', global: 'readonly' } },
  },
);
