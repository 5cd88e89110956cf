import { defineConfig } from 'vitest/config';

/** The rules' tests: pure, but the property tests run thousands of cases on a busy machine. */
export default defineConfig({
  test: {
    name: 'billing',
    include: ['src/**/*.test.ts'],
    testTimeout: 30_000,
    setupFiles: ['../../apps/server/test/helpers/fail-on-console-error.ts'],
  },
});
