// @ts-check
// ESLint for the TypeScript of the repository (docs/development.md, "Lint and format"): src/, migrations/,
// bench/ and tools/ get ESLint's and typescript-eslint's recommended rules with type information
// (recommendedTypeChecked), so a promise a handler forgets to await (`no-floating-promises`) or hands to a
// callback that ignores it (`no-misused-promises`) fails `npm run lint`; tests/ gets the promise rules only.
// Formatting is Prettier's (`npm run format:check`), not ESLint's. A rule turned off or down, here or in a
// disable comment, says why.
import eslint from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  {
    // The JavaScript files are small CommonJS scripts outside the TypeScript project; clients/ is a package
    // of its own (and mostly generated).
    ignores: ['dist/', 'coverage/', 'clients/', 'node_modules/', 'test-artifacts/', 'src/wire/', '**/*.js', '**/*.mjs'],
  },
  {
    files: ['**/*.ts'],
    ignores: ['tests/**'],
    extends: [eslint.configs.recommended, tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // An `async` function without `await` is how this code implements an async interface (the in-memory
      // stores, `stop()`, migration sources): dropping `async` would turn its throws into synchronous ones.
      '@typescript-eslint/require-await': 'off',
      // A leading `_` marks a name left unused on purpose, as tsc's noUnusedLocals accepts it: a field
      // dropped from a rest destructuring, an Express error handler's fourth parameter.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
      // Off for two reasons. Without noUncheckedIndexedAccess each `rows[0]!` counts as unnecessary. And on a
      // knex query, `(await q) as Row[]` is reported too, because the assertion is what lets TypeScript infer
      // knex's result type parameter: without it the value is `any` again.
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
    },
  },
  {
    // Tests get the rules that catch a lost promise (an `expect(...).rejects` not awaited passes whatever
    // happens) and the require rule. The rest of recommendedTypeChecked reports about 1,600 places, mostly
    // no-unsafe-* on supertest's `res.body`, which is `any` by design and checked by toMatchObject.
    files: ['tests/**/*.ts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-require-imports': 'error',
    },
  },
);
