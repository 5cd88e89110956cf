/**
 * The app built from a production configuration (docs/decisions/061-production-mode.md): no
 * developer routes, whatever mailer it is handed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from './config/config.ts';
import { createTestContext, type TestContext } from '../test/helpers/test-app.ts';

let context: TestContext;
beforeAll(async () => {
  const production = loadConfig({
    NODE_ENV: 'production',
    PUBLIC_URL: 'https://portal.example.com',
    SMTP_URL: 'smtp://127.0.0.1:2525',
    BILLING: 'local',
    LOG_LEVEL: 'silent',
  });
  // The test context hands the app its outbox mailer: production must still not serve it.
  context = await createTestContext(production);
});
afterAll(() => context.close());

describe('production mode', () => {
  it('serves the API', async () => {
    const response = await context.app.inject({ method: 'GET', url: '/api/healthz' });
    expect(response.statusCode).toBe(200);
  });

  it.each([
    '/dev/mail',
    '/dev/outbox',
    '/dev/outbox?to=a@example.com',
    '/api/docs',
    '/api/docs/json',
  ])('has no %s', async (url) => {
    const response = await context.app.inject({ method: 'GET', url });
    expect(response.statusCode).toBe(404);
    expect(response.json<{ code: string }>().code).toBe('NOT_FOUND');
  });

  it('has no billing test clock', async () => {
    const page = await context.app.inject({ method: 'GET', url: '/billing-engine/test-clock' });
    expect(page.statusCode).toBe(404);
    for (const url of ['/billing-engine/test-clock/advance', '/billing-engine/test-clock/run']) {
      const response = await context.app.inject({ method: 'POST', url, payload: { months: 1 } });
      expect(response.statusCode).toBe(404);
    }
  });

  it('still serves the billing engine pages customers use', async () => {
    const response = await context.app.inject({
      method: 'GET',
      url: '/billing-engine/assets/engine.css',
    });
    expect(response.statusCode).toBe(200);
  });
});
