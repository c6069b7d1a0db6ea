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
            { regex: '^(\\.\\./)+(runtime|adapters|cli|gateway|tui|web)(/|$)', message: 'core/ imports nothing of our other layers.' },
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
        { patterns: [{ regex: '^(\\.\\./)+(adapters|cli|gateway|tui|web)(/|$)', message: 'runtime/ depends only on core/.' }] },
      ],
    },
  },
  {
    files: ['src/adapters/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: '^(\\.\\./)+(cli|gateway|tui|web)(/|$)', message: 'adapters/ depend on runtime/ and core/ only.' }] },
      ],
    },
  },
  {
    files: ['src/gateway/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: '^(\\.\\./)+(cli|tui|web)(/|$)', message: 'gateway/ depends on adapters/, runtime/ and core/ (the dashboard is served as built files, not imported).' }] },
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
