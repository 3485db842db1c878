// Lint rules that protect what the type checker cannot: workflow determinism and awaited promises.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((name) => `node:${name}`)];

// Workflow code is replayed: it must not do I/O or reach the ramp client directly. Activities and
// ramp types may be imported as types only. Patches are asked through workflows/common/patches.ts, which
// folds them (its comment says why), so `patched` is imported there and nowhere else.
const workflowImportRules = ({ patchesModule }) => [
  'error',
  {
    paths: [
      ...nodeBuiltins.map((name) => ({ name, message: 'Workflow code must be deterministic: no Node built-ins.' })),
      ...(patchesModule
        ? []
        : [
            {
              name: '@temporalio/workflow',
              importNames: ['patched', 'deprecatePatch'],
              message: 'Ask takesPatch() from workflows/common/patches.ts, and add the patch there.',
            },
          ]),
    ],
    patterns: [
      {
        group: ['**/ramp', '**/ramp/**'],
        allowTypeImports: true,
        message: 'Workflows call the ramp service through activities only.',
      },
      {
        group: ['**/activities', '**/activities/**'],
        allowTypeImports: true,
        message: 'Import activities as types and call them through proxyActivities.',
      },
      {
        group: ['undici', 'fastify', 'pino', '@temporalio/client', '@temporalio/worker', '@temporalio/activity'],
        message: 'Not available in the workflow sandbox.',
      },
    ],
  },
];

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      '.tools/',
      '.data/',
      'bench/results/',
      'coverage/',
      'bin/',
      'dist/',
      'workflows/generated/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // Passing on a rejection we caught (`.catch((error: unknown) => … Promise.reject(error))`) is not a new non-Error reason.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true }],
      // An async function without await is how a Promise-returning interface (a PayloadCodec, a fastify
      // handler, an activity) is implemented here: a throw in it becomes a rejection, as callers expect.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // Tests read HTTP bodies, histories and CLI output as `any` and assert on their shape: the
    // assertion is the check a type would give. Activities are passed unbound to
    // MockActivityEnvironment.run, as a worker calls them.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  // The JavaScript files (this config, the failure converter) are outside the TypeScript project.
  { files: ['**/*.{js,cjs,mjs}'], ...tseslint.configs.disableTypeChecked },
  {
    // Loaded by the Temporal SDK with a plain require() (codec/data-converter.ts says why): CommonJS.
    files: ['codec/failure-converter.js'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', exports: 'writable' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // config/ reads the environment for every process, so it imports nothing of ours (README, the map
    // of the folders): what it needs moves down into config/ or is passed in. Types included.
    files: ['config/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['../*', '../**'],
              message: 'config/ imports nothing of ours: move what it needs down into config/, or pass it in.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['workflows/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': workflowImportRules({ patchesModule: false }),
      'no-restricted-globals': [
        'error',
        { name: 'setTimeout', message: 'Use sleep() from @temporalio/workflow.' },
        { name: 'setInterval', message: 'Use sleep() from @temporalio/workflow.' },
      ],
      'no-restricted-properties': [
        'error',
        {
          object: 'Date',
          property: 'now',
          message: 'Date.now() is replay-safe only through the workflow API; prefer workflowInfo() or timers.',
        },
      ],
    },
  },
  {
    files: ['workflows/common/patches.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': workflowImportRules({ patchesModule: true }) },
  },
);
