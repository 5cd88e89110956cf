import { afterAll, describe, expect, it } from 'vitest';
import { testConfig } from '../config/config.ts';
import { createLogger } from '../lib/logger.ts';
import type { Readiness } from '../modules/health/readiness.ts';
import { buildOpsServer } from './ops-server.ts';

describe("a worker's HTTP server", () => {
  const warnings: Error[] = [];
  const onWarning = (warning: Error) => void warnings.push(warning);
  process.on('warning', onWarning);
  afterAll(() => void process.off('warning', onWarning));

  it('starts without a deprecation warning and logs no line per probe (docs/decisions/106)', async () => {
    const lines: string[] = [];
    const ready = async () => ({
      status: 'ready' as const,
      reasons: [],
      checks: { database: 'ok', migrations: 'ok', jobQueue: 'ok' } as const,
      providers: {} as never,
    });
    const readiness: Readiness = {
      check: ready,
      refresh: ready,
      start() {},
      stop() {},
      startDraining() {},
      isDraining: false,
    };
    const app = await buildOpsServer(testConfig(), {
      readiness,
      database: { executeSql: async () => [] as never },
      logger: createLogger('info', { write: (line: string) => void lines.push(line) }),
    });
    const health = await app.inject({ method: 'GET', url: '/api/healthz' });
    expect(health.statusCode).toBe(200);
    await app.close();
    // Fastify warns on the next tick of the event loop; give it one.
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings.map((warning) => `${warning.name}: ${warning.message}`)).toEqual([]);
    expect(lines.map((line) => (JSON.parse(line) as { msg: string }).msg)).toEqual([]);
  });
});
