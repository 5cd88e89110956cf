import fs from 'node:fs';
import path from 'node:path';
import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import { importX } from 'eslint-plugin-import-x';
import globals from 'globals';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

/**
 * The portal takes the local billing engine through its entry alone (decision 171), so what the
 * package keeps to itself can change without the server noticing.
 */
const billingEngineEntryZone = (target) => ({
  target,
  from: 'packages/billing-engine/src',
  except: ['./index.ts'],
  message:
    "Import the local billing engine from '@farmcam/billing-engine', its entry; its files are its own (decision 171).",
});

/**
 * The server's layers, lowest first (docs/decisions/084, ARCHITECTURE.md): a folder may import
 * the ones below it, never one above. Tests and test support are not held to it.
 */
const server = 'apps/server/src';
const entryPoints = ['app.ts', 'server.ts', 'staff.ts', 'backup.ts', 'restore.ts'].map(
  (file) => `${server}/${file}`,
);
const serverZone = (target, from, why) => ({
  target: `${server}/${target}`,
  from: [...from.map((folder) => `${server}/${folder}`), ...entryPoints],
  message: why,
});
const serverLayerZones = [
  serverZone(
    'config',
    ['errors.ts', 'db', 'lib', 'providers', 'plugins', 'modules', 'jobs', 'seed', 'process', 'cli'],
    'The configuration reader depends on nothing of ours (decision 084).',
  ),
  serverZone(
    'errors.ts',
    ['config', 'db', 'lib', 'providers', 'plugins', 'modules', 'jobs', 'seed', 'process', 'cli'],
    'The error model depends on nothing of ours (decision 084).',
  ),
  serverZone(
    'db',
    ['lib', 'providers', 'plugins', 'modules', 'jobs', 'seed', 'process', 'cli'],
    'db (schema, client, migrations) is the lowest layer: it imports only config and errors (decision 084).',
  ),
  serverZone(
    'lib',
    ['providers', 'plugins', 'modules', 'jobs', 'seed', 'process', 'cli'],
    'lib is shared plumbing: it may import db, config and errors only (decision 084).',
  ),
  serverZone(
    'providers',
    ['plugins', 'modules', 'jobs', 'seed', 'process', 'cli'],
    'A provider implements a port for the modules: it may import lib, db, config and errors only (decision 084).',
  ),
  serverZone(
    'plugins',
    ['providers', 'modules', 'jobs', 'seed', 'process', 'cli'],
    'The cross-cutting Fastify plugins know no domain: they may import lib, db, config and errors only; a domain plugin belongs in its module (decision 084).',
  ),
  serverZone(
    'modules',
    ['plugins', 'jobs', 'seed', 'process', 'cli'],
    'A module may import other modules, providers, lib, db, config and errors; jobs, seeds and wiring sit above it (decision 084).',
  ),
  serverZone(
    'jobs',
    ['seed', 'process', 'cli'],
    'Jobs run module services; only the entry points and process/ sit above them (decision 084).',
  ),
  serverZone(
    'seed',
    ['plugins', 'modules', 'jobs', 'process', 'cli'],
    'The demo seed writes through db, lib and the providers, never through a module or a job (decision 084).',
  ),
  serverZone('process', ['cli'], 'process/ holds start-up pieces of server.ts (decision 084).'),
  serverZone('cli', ['process'], 'cli/ holds the command-line programs (decision 084).'),
  billingEngineEntryZone(server),
];

/**
 * The web, as bulletproof-react has it: shared code (components, lib, config) → features → app.
 * A feature never imports another; what two features share moves to a shared folder, and app/
 * composes features (decision 084).
 */
const web = 'apps/web/src';
const webFeatures = fs.readdirSync(path.join(import.meta.dirname, web, 'features'));
const webZones = [
  ...webFeatures.map((feature) => ({
    target: `${web}/features/${feature}`,
    from: `${web}/features`,
    except: [`./${feature}`],
    message:
      'Features never import each other: move the shared piece to components/ or lib/, or compose the two in app/ (decision 084).',
  })),
  {
    target: `${web}/features`,
    from: `${web}/app`,
    message: 'app/ composes the features; a feature never imports it (decision 084).',
  },
  {
    target: [`${web}/components`, `${web}/lib`, `${web}/config`],
    from: [`${web}/features`, `${web}/app`],
    message: 'Shared code imports no feature and not app/ (decision 084).',
  },
];

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      'data/**',
      'coverage/**',
      'e2e/test-results/**',
      'e2e/playwright-report/**',
      'apps/server/src/db/migrations/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': ['error', { allow: ['warn', 'error'] }],
    },
  },
  {
    files: ['apps/server/**/*.ts', 'apps/web/**/*.{ts,tsx}', 'packages/*/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.tsx', '.js', '.mjs'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
      'import-x/resolver-next': [
        createTypeScriptImportResolver({
          noWarnOnMultipleProjects: true,
          project: [
            'apps/server/tsconfig.json',
            'apps/web/tsconfig.json',
            'packages/contract/tsconfig.json',
            'packages/db/tsconfig.json',
            'packages/billing/tsconfig.json',
            'packages/billing-engine/tsconfig.json',
            'packages/billing-engine/tsconfig.test.json',
          ],
        }),
      ],
    },
    rules: {
      // Type-only imports are left out (they vanish at run time). Unbounded depth: the rule
      // visits each file once per run, and a depth limit cost the same (decision 084).
      'import-x/no-cycle': ['error', { maxDepth: '∞', ignoreExternal: true }],
    },
  },
  {
    files: [`${server}/**/*.ts`],
    ignores: ['**/*.test.ts', '**/*.test-support.ts'],
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        { basePath: import.meta.dirname, zones: serverLayerZones },
      ],
    },
  },
  {
    // The workspace packages sit below the apps (decision 171): what a package needs from the
    // server it is given, never imports. Tests may borrow the server's test harness.
    files: ['packages/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        {
          basePath: import.meta.dirname,
          zones: [
            {
              target: 'packages',
              from: 'apps',
              message:
                'A package never imports an app: take what it needs as a dependency given at creation (decision 171).',
            },
          ],
        },
      ],
    },
  },
  {
    // The server's tests are held to the engine's entry too (its code is, with its layers).
    files: [`${server}/**/*.test.ts`, `${server}/**/*.test-support.ts`, 'apps/server/test/**/*.ts'],
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        { basePath: import.meta.dirname, zones: [billingEngineEntryZone('.')] },
      ],
    },
  },
  {
    files: [`${web}/**/*.{ts,tsx}`],
    ignores: ['**/*.test.{ts,tsx}'],
    rules: {
      'import-x/no-restricted-paths': ['error', { basePath: import.meta.dirname, zones: webZones }],
      // zod stays out of the bundle: the contract's schemas are types here, its run-time values
      // come from the zod-free entry.
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@farmcam/contract',
              allowTypeImports: true,
              message:
                'The web takes types from @farmcam/contract; values come from @farmcam/contract/rules, which carries no zod.',
            },
            { name: 'zod', message: 'The web bundle carries no zod.' },
          ],
        },
      ],
    },
  },
  {
    files: ['apps/web/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: { ...reactHooks.configs.recommended.rules },
  },
  {
    // One composition root (decision 087): only process/compose.ts chooses a port's adapter.
    files: ['apps/server/src/**/*.ts'],
    ignores: [
      'apps/server/src/process/compose.ts',
      'apps/server/src/providers/**',
      'apps/server/src/**/*.test.ts',
    ],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '/providers/[^/]+/create-[^/]+$',
              allowTypeImports: true,
              message:
                'Adapters are chosen once, in process/compose.ts (decision 087): take the port from your dependencies.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['apps/server/src/**/*.ts'],
    ignores: ['apps/server/src/config/**', 'apps/server/src/**/*.test.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read configuration through src/config.' },
      ],
    },
  },
  {
    files: ['bench/**', 'scripts/**', 'e2e/**'],
    rules: { 'no-console': 'off' },
  },
);
