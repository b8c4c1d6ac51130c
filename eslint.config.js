// ESLint flat config: typescript-eslint with type information for every
// TypeScript file, React hooks rules for the web UI. Formatting is Prettier's
// job (npm run format:check); folder rules and import cycles are
// dependency-cruiser's (.dependency-cruiser.cjs).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.venv/**', 'test-output/**', '.tmp-*/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // Promises must be awaited, returned or explicitly dropped with `void`.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { attributes: false } }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      // String(x) of an `unknown` value from a file or the wire is deliberate
      // (labels, CSV cells, messages); a typed object without toString is
      // still an error.
      // `async` without `await` is used on purpose: it turns a throw into a
      // rejection (Fastify handlers and hooks, RunManager.start), which is the
      // contract their callers rely on.
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-base-to-string': ['error', { checkUnknown: false }],
    },
  },
  {
    files: ['web/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    languageOptions: { globals: globals.browser },
    rules: {
      ...reactHooks.configs.recommended.rules,
      // Only says the React Compiler would skip a component that uses
      // @tanstack/react-virtual; the UI is not built with the compiler.
      'react-hooks/incompatible-library': 'off',
    },
  },
  {
    // Production functions stay short enough to read in one screen: a longer
    // one is several steps that want names of their own. Tests are excepted:
    // a test's set-up, act and assertions read best in one place.
    files: ['server/**/*.ts', 'shared/**/*.ts', 'web/**/*.{ts,tsx}', 'scripts/**/*.{ts,mjs,js}', 'bin/**/*.js'],
    rules: {
      'max-lines-per-function': ['error', { max: 100, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    files: ['test/**/*.{ts,tsx}'],
    rules: {
      // Tests parse result files, JSON bodies and fixtures and assert on their
      // fields: those values are untyped data by nature, and typing every
      // shape would restate the schemas the tests are checking.
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      // Fixture values are asserted as the shapes the test expects, and
      // printed as they are in assertion messages (Buffers from sockets too).
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
      '@typescript-eslint/restrict-template-expressions': 'off',
      '@typescript-eslint/no-base-to-string': 'off',
    },
  },
  {
    files: ['**/*.{js,mjs,cjs}'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: { ...globals.node },
    },
  },
);
