// Layer walls are lint rules, not conventions: src/core, src/frontends and src/webview never import 'vscode',
// src/core never reaches into the extension or webview layers.
import js from '@eslint/js';
import { builtinRules } from 'eslint/use-at-your-own-risk';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// ESLint gives a rule one severity per file, so the hard cap on file length is the built-in
// max-lines rule registered a second time under a local name. eslint/use-at-your-own-risk is how
// plugins (unicorn, sonarjs) reach built-in rules; it is outside semver, so an upgrade that drops
// it stops the lint here rather than silently losing the cap.
const maxLinesRule = builtinRules.get('max-lines');
if (!maxLinesRule) throw new Error("eslint.config.mjs: this ESLint no longer exposes the built-in 'max-lines' rule; re-create the 800-line error cap another way.");
const sizes = { rules: { 'max-lines': maxLinesRule } };

const vscodeBan = { name: 'vscode', message: 'Only src/extension may import vscode (docs/architecture.md, "Imports and lint walls").' };

export default tseslint.config(
  { ignores: ['dist/**', 'out/**', 'node_modules/**', '.vscode-test/**', 'test-results/**', '**/*.js', '**/*.mjs', '!scripts/*.mjs', '**/*.cjs', 'scripts/*.d.mts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Sizes a reader can hold (issues 15 and 27): a file over 500 lines is a warning to look at
    // whether it holds one subject; over 800 it is an error. Cohesion decides where a file ends, not
    // the cap. A function over 120 lines is split; a table-shaped switch may go over, with an
    // eslint-disable comment that says so.
    files: ['src/**/*.ts'],
    plugins: { sizes },
    rules: {
      'max-lines': ['warn', { max: 500 }],
      'sizes/max-lines': ['error', { max: 800 }],
      'max-lines-per-function': ['error', { max: 120 }],
    },
  },
  {
    // The build, test and start scripts run on Node, outside the TypeScript project.
    files: ['scripts/*.mjs'],
    languageOptions: { globals: globals.node },
  },
  ...[
    { files: ['src/frontends/**/*.ts', 'src/cli/**/*.ts', 'src/webview/**/*.ts'], extra: [] },
    {
      // The core's own sentences are kinds (src/core/texts): `verbatim` is for text that is not
      // ours (a server's, the OS's, the model's values), never for English written here.
      files: ['src/core/**/*.ts'],
      extra: [
        {
          selector: "CallExpression[callee.name='verbatim'][arguments.0.type=/^(Literal|TemplateLiteral|BinaryExpression)$/]",
          message: 'The core says a kind with its data (src/core/texts and src/frontends/words), not English: verbatim is for text that is not ours.',
        },
      ],
    },
  ].map(({ files, extra }) => ({
    // import('vscode') and require('vscode') slip past no-restricted-imports; catch them too.
    files,
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: "ImportExpression[source.value='vscode']", message: vscodeBan.message },
        { selector: "CallExpression[callee.name='require'][arguments.0.value='vscode']", message: vscodeBan.message },
        ...extra,
      ],
    },
  })),
  ...[
    { files: ['src/frontends/**/*.ts', 'src/cli/**/*.ts'], paths: [vscodeBan] },
    // The core says kinds with data and never words them (src/core/userText.ts): no l10n there.
    { files: ['src/core/**/*.ts'], paths: [vscodeBan, { name: '@vscode/l10n', message: 'The core returns a UserText kind with its data; src/frontends/words words it (docs/architecture.md, "Words a user reads").' }] },
  ].map(({ files, paths }) => ({
    files,
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths,
          patterns: [
            { group: ['**/extension', '**/extension/**'], message: 'src/core, src/frontends and src/cli must not depend on the VS Code layer.' },
            { group: ['**/webview', '**/webview/**', '**/protocol'], message: 'src/core, src/frontends and src/cli must not depend on the webview or the protocol.' },
          ],
        },
      ],
    },
  })),
  {
    files: ['src/webview/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [vscodeBan],
          patterns: [{ group: ['**/core/**', '**/extension/**', 'node:*'], message: 'The webview imports only src/protocol.ts (and browser libraries).' }],
        },
      ],
    },
  },
);
