// Lint rules: typescript-eslint's recommended set, plus the import boundaries of docs/DESIGN.md.
// `npm run lint` runs this and Prettier's check; .ci/run runs `npm run lint`.
import js from '@eslint/js';
import globals from 'globals';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

/** Imports a part of the code may not make, each with the reason a reader gets when it does. */
const boundary = (patterns) => ['error', { patterns }];
const noElectron = {
  group: ['electron', 'electron/*'],
  message: "Only electron/main and electron/preload import 'electron': everything else runs in plain Node.",
};
const engineRule = boundary([
  noElectron,
  { group: ['**/service', '**/service/**'], message: 'The engine does not import the service: the service uses the engine.' },
  { group: ['**/shared/contract', '**/shared/contract.js'], message: 'The engine does not know the IPC contract.' },
  { group: ['**/cli/**', '**/main/**', '**/web/**', '**/renderer-host/**', '**/preload/**'], message: 'The engine does not import its hosts.' },
]);
const serviceRule = boundary([
  noElectron,
  {
    group: ['**/engine/*', '**/engine/*/**', '!**/engine/index.js'],
    message: 'The service uses the engine through electron/engine/index.ts only.',
  },
  { group: ['**/cli/**', '**/main/**', '**/web/**', '**/renderer-host/**', '**/preload/**'], message: 'The service does not import its hosts.' },
]);
const rendererRule = boundary([
  { group: ['**/electron/**', '**/test/**', '**/bench/**', 'node:*'], message: 'The renderer imports only renderer/ and shared/.' },
  { group: ['electron', 'electron/*'], message: 'The renderer talks to main over the contract only.' },
]);

export default tseslint.config(
  { ignores: ['dist/**', 'release/**', 'node_modules/**', 'test/fixtures/**/*.xml', '**/*.d.mts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-explicit-any': 'off',
      'no-control-regex': 'off',
      // A `let` closures read before its one assignment is not a const.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  {
    files: ['renderer/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: { 'react-hooks/rules-of-hooks': 'error', 'react-hooks/exhaustive-deps': 'warn' },
  },
  { files: ['electron/engine/**/*.ts'], rules: { 'no-restricted-imports': engineRule } },
  { files: ['electron/service/**/*.ts'], rules: { 'no-restricted-imports': serviceRule } },
  { files: ['renderer/src/**/*.{ts,tsx}'], rules: { 'no-restricted-imports': rendererRule } },
  {
    files: ['electron/cli/**/*.ts', 'electron/web/**/*.ts', 'electron/renderer-host/**/*.ts', 'shared/**/*.ts'],
    rules: { 'no-restricted-imports': boundary([noElectron]) },
  },
  { files: ['**/*.cjs'], languageOptions: { sourceType: 'commonjs' }, rules: { '@typescript-eslint/no-require-imports': 'off' } },
);
