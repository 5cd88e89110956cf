import { defineConfig } from 'vitest/config';

/**
 * The engine's tests (decision 171). Most drive it inside the portal, through the server's test
 * context on a fresh database per file, so they share the server project's set-up: the run's
 * migrated PGlite template and the failure on an unexpected console.error.
 */
export default defineConfig({
  test: {
    name: 'billing-engine',
    include: ['src/**/*.test.ts'],
    // Files share their worker's modules (decision 150): importing the app once per worker, not
    // once per file, took the server suites from 313 s to 203 s. Each file still opens its own
    // database and app, and a file that fakes timers or globals puts them back.
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    setupFiles: [
      '../../apps/server/test/helpers/fail-on-console-error.ts',
      '../../apps/server/test/helpers/fresh-connections.ts',
    ],
    globalSetup: ['../../apps/server/test/helpers/pglite-template.ts'],
  },
});
