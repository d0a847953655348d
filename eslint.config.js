// ESLint 9 flat config: typescript-eslint's recommended rules plus a few
// type-aware ones that catch real bugs (a promise nobody awaits, an async
// callback where a void one is expected), and the import boundaries between
// the app's floors (ARCHITECTURE.md, "Floors and arrows"). No formatting rules.
//
//   types/               the bottom floor: shared shapes and the one error-code list; imports nothing
//   native/index.ts      the binding; imports only types/
//   app/engine-process/  the engine's process; imports native, types, app/shared, app/ipc — never the host
//   app/main/electron/   the Electron entry and adapters: with app/preload the only `electron` importers
//   every module         no import cycles (local/no-import-cycle, scripts/lint/plugin.mjs)
//
//   npm run lint            everything below
//   npx eslint app/main     one folder
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import local from './scripts/lint/plugin.mjs';

// Import paths are relative, so a folder is named as seen from outside app/ (`../../app/main/x.js`) and,
// for app/ipc and app/shared, from a sibling folder (`../main/x.js`).
const NATIVE = ['**/native/index.js', '**/native/index'];
const MAIN = ['**/app/main', '**/app/main/**', '../main', '../main/**'];
const PRELOAD = ['**/app/preload', '**/app/preload/**', '../preload', '../preload/**'];
const RENDERER = ['**/renderer', '**/renderer/**'];
const ENGINE_PROCESS = ['**/engine-process/**'];
const APP = ['**/app/**', '../app', '../app/**'];

export default tseslint.config(
  {
    ignores: [
      'dist/**', 'node_modules/**', 'native/build/**', '.cache/**', 'test-results/**', 'playwright-report/**',
      'test/scratch/**', 'bench-results/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      // The three programs `npm run typecheck` checks: main/CLI/node tests, the renderer, the Playwright suites.
      parserOptions: {
        project: ['./tsconfig.json', './renderer/tsconfig.json', './test/e2e/tsconfig.json'],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // Type-aware, and cheap enough: an unawaited promise loses its error; an async listener's
      // rejection goes nowhere.
      '@typescript-eslint/no-floating-promises': ['error', {
        // node:test's test()/describe() return promises the runner itself awaits.
        allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'it', 'describe', 'suite'] }],
      }],
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { attributes: false, arguments: false } }],
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-for-in-array': 'error',
      '@typescript-eslint/only-throw-error': 'error',
      // `_name` marks a parameter an interface requires but this implementation does not read.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // `import type` keeps the boundary rules below exact: a type-only import loads nothing.
      // (`typeof import('node:fs')` stays allowed: code evaluated in another process cannot import.)
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false }],
      // TypeScript checks these itself (and knows the globals of each tsconfig).
      'no-undef': 'off',
      'no-redeclare': 'off',
      // Control characters in regular expressions are what the sanitizers look for.
      'no-control-regex': 'off',
    },
  },
  {
    // Plain JavaScript (scripts, bin, this file): no type information.
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
    rules: {
      ...tseslint.configs.disableTypeChecked.rules,
      '@typescript-eslint/consistent-type-imports': 'off',
    },
  },

  {
    // Playwright reads a fixture's dependencies from its first parameter's pattern: `{}` means none.
    files: ['test/e2e/**/*.ts', 'test/electron/**/*.ts'],
    rules: { 'no-empty-pattern': 'off' },
  },

  // ---------------------------------------------------------------- boundaries
  {
    // The contract (and its validators) is what both sides derive from: it imports neither side.
    files: ['app/ipc/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', {
        patterns: [
          { group: [...MAIN, ...PRELOAD, ...RENDERER, '**/native/**'], message: 'app/ipc is the contract: it declares its own types and imports nothing from app/main, app/preload, renderer or native.' },
          { group: ['electron', 'node:*'], message: 'app/ipc runs in the renderer too: no Node or Electron modules.' },
        ],
      }],
    },
  },
  {
    // The renderer reaches main only through window.parakeet; types come from the contract.
    files: ['renderer/**/*.ts', 'renderer/**/*.tsx'],
    ignores: ['renderer/vite.config.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', {
        patterns: [
          { group: [...MAIN, ...PRELOAD, '**/native/**', '**/app/cli/**', '**/app/web/**'], message: 'The renderer talks to main through window.parakeet: import types from app/ipc/contract.ts, not from app/main, native or the adapters.' },
          { group: ['electron', 'node:*'], message: 'The renderer is sandboxed: no Node or Electron modules.' },
        ],
      }],
    },
  },
  {
    // The host side may name the binding's types, but only the engine process (and the CLI) load it; of the
    // engine process it loads only the public surface: the wire protocol, the WAV reader, the inline engine.
    files: ['app/main/**/*.ts', 'app/web/**/*.ts', 'app/preload/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', {
        patterns: [
          { group: NATIVE, allowTypeImports: true, message: 'Only the engine process (app/engine-process) and the CLI load the native binding; use `import type` here.' },
          {
            group: [...ENGINE_PROCESS, '!**/engine-process/protocol.js', '!**/engine-process/wav-file.js', '!**/engine-process/inline-transport.js'],
            allowTypeImports: true,
            message: 'The host reaches the engine process through its protocol (protocol.ts), the WAV reader (wav-file.ts) or the inline engine (inline-transport.ts); anything else: `import type`.',
          },
        ],
      }],
    },
  },
  {
    // The engine's own process: the binding below it, never the host (main, web, CLI) or the UI above it.
    files: ['app/engine-process/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', {
        patterns: [{ group: [...MAIN, ...PRELOAD, ...RENDERER, '**/app/web/**', '**/app/cli/**', '../web/**', '../cli/**'], message: 'app/engine-process runs alone in its process: it imports native, types, app/shared and app/ipc, never the host or the UI.' }],
      }],
    },
  },
  {
    // The binding is a floor below the app: shapes come from types/, nothing from app/.
    files: ['native/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', {
        patterns: [{ group: APP, message: 'native/ imports nothing from app/: the shapes it shares with the app live in types/.' }],
      }],
    },
  },
  {
    // The bottom floor imports nothing but itself.
    files: ['types/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', {
        patterns: [{ regex: '^(?!\\./)', message: 'types/ is the bottom floor: it imports nothing outside types/.' }],
      }],
    },
  },
  {
    // app/shared is pure TypeScript for the CLI, main and the renderer alike.
    files: ['app/shared/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', {
        patterns: [{ group: [...MAIN, ...PRELOAD, ...RENDERER, '**/native/**'], message: 'app/shared is shared by every side: it imports none of them.' }],
      }],
    },
  },

  {
    // Only the Electron adapters import Electron: the rest of main runs unchanged in web mode and in tests.
    files: ['**/*.ts', '**/*.tsx', '**/*.mjs', '**/*.js'],
    ignores: ['app/main/electron/**', 'app/preload/**', 'test/support/fake-electron/**'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [{ name: 'electron', message: 'Only the Electron entry and adapters (app/main/electron/) and the preload (app/preload/) import electron; take what you need as a parameter or an interface.' }],
      }],
    },
  },
  {
    // No module may reach itself through its imports (type-only imports count: a circle of types is a circle).
    files: ['**/*.ts', '**/*.tsx', '**/*.mjs', '**/*.js'],
    plugins: { local },
    rules: { 'local/no-import-cycle': 'error' },
  },
);
