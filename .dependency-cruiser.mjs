/**
 * Module folders under apps/server/src/modules form a tree (docs/decisions/160): run by
 * `npm run lint`. ESLint's import-x/no-cycle sees cycles of files; this sees cycles of folders,
 * which no file-level rule can (auth/a.ts → team/b.ts → auth/c.ts is no file cycle).
 * @type {import('dependency-cruiser').IConfiguration}
 */
export default {
  forbidden: [
    {
      name: 'module-folders-form-a-tree',
      severity: 'error',
      comment:
        'Two module folders import each other (directly or round a loop). Decide which one is lower, and move what the lower one needs from the other into it or pass it in (decision 160).',
      scope: 'folder',
      from: { path: '^apps/server/src/modules/([^/]+)' },
      to: {
        path: '^apps/server/src/modules/',
        pathNot: '^apps/server/src/modules/$1(/|$)',
        circular: true,
      },
    },
    {
      name: 'no-other-modules-repository',
      severity: 'error',
      comment:
        "A module reaches another module's data through that module's services, never its repository (decision 160).",
      from: { path: '^apps/server/src/modules/([^/]+)/' },
      to: {
        path: '^apps/server/src/modules/[^/]+/.*\\.repository\\.ts$',
        pathNot: '^apps/server/src/modules/$1/',
      },
    },
    {
      name: 'sql-only-in-repositories',
      severity: 'error',
      comment:
        "SQL (drizzle-orm, the schema's tables) is written in the module's *.repository.ts; services hold the rules and call it, routes call one service (docs/decisions/166). Types from either may be imported anywhere.",
      from: {
        path: '^apps/server/src/modules/',
        pathNot: '\\.repository\\.ts$',
      },
      to: {
        path: [
          '^node_modules/drizzle-orm/',
          '^apps/server/src/db/schema\\.ts$',
          '^packages/db/src/schema\\.ts$',
        ],
        dependencyTypesNot: ['type-only'],
      },
    },
  ],
  options: {
    includeOnly: [
      '^apps/server/src/modules/',
      '^apps/server/src/db/schema\\.ts$',
      '^packages/db/src/schema\\.ts$',
      '^node_modules/drizzle-orm/',
    ],
    exclude: { path: '\\.test(-support)?\\.ts$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'apps/server/tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
