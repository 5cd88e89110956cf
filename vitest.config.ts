import os from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Vitest's default is one worker fewer than the CPUs: one file at a time on this 2-core
    // machine, so CI's vitest ran on one core. One file per core (docs/decisions/150);
    // VITEST_MAX_WORKERS overrides.
    maxWorkers: Number(process.env.VITEST_MAX_WORKERS) || os.availableParallelism(),
    projects: [
      'packages/contract',
      'packages/billing',
      'packages/billing-engine',
      'apps/server',
      'apps/web',
    ],
  },
});
