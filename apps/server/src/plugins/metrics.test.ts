import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, nextIp, type TestContext } from '../../test/helpers/test-app.ts';
import { metricsPlugin } from './metrics.ts';

const metricsToken = 'a-metrics-token-of-more-than-32-characters';
let context: TestContext;

beforeAll(async () => {
  context = await createTestContext({ metricsToken });
});
afterAll(async () => context?.close());

const scrape = (headers: Record<string, string> = { authorization: `Bearer ${metricsToken}` }) =>
  context.app.inject({ method: 'GET', url: '/metrics', headers });

/** The value of one series in the text format, 0 when absent. */
function sampleValue(text: string, series: string): number {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

describe('GET /metrics', () => {
  it('refuses a scrape without the token or with a wrong one', async () => {
    const missing = await scrape({});
    expect(missing.statusCode).toBe(401);
    expect(missing.headers['www-authenticate']).toBe('Bearer realm="metrics"');
    expect(missing.json()).toMatchObject({ code: 'UNAUTHENTICATED' });
    expect(missing.body).not.toContain('farmcam_');

    const wrong = await scrape({ authorization: `Bearer ${metricsToken.slice(0, -1)}x` });
    expect(wrong.statusCode).toBe(401);
    const notBearer = await scrape({ authorization: metricsToken });
    expect(notBearer.statusCode).toBe(401);
  });

  it('answers the Prometheus text format, requests counted by route pattern, not raw URL', async () => {
    const customerId = 'cus_PRIVATE12345';
    const loginToken = 'tok_SECRET_login_token_value_1234567890';
    // The registry is the process's (lib/metrics.ts) and test files share their worker's
    // modules (decision 150), so what this test adds is measured against what was there.
    const earlier = (await scrape()).body;
    const added = (text: string, series: string) =>
      sampleValue(text, series) - sampleValue(earlier, series);
    for (let index = 0; index < 3; index += 1) {
      const answer = await context.app.inject({
        method: 'GET',
        url: `/api/invoices/fetch-invoices/${customerId}`,
        remoteAddress: nextIp(),
      });
      expect(answer.statusCode).toBe(401);
    }
    await context.app.inject({ method: 'GET', url: `/api/auth/login?token=${loginToken}` });
    await context.app.inject({ method: 'GET', url: `/api/no-such-route/${customerId}` });

    const answer = await scrape();
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = answer.body;
    expect(text).toContain('# TYPE farmcam_http_requests_total counter');
    expect(text).toContain('# TYPE farmcam_http_request_duration_seconds histogram');
    expect(text).toContain('process_cpu_seconds_total');
    expect(
      added(
        text,
        'farmcam_http_requests_total{method="GET",route="/api/invoices/fetch-invoices/:customerId",status_class="4xx"}',
      ),
    ).toBe(3);
    expect(
      added(
        text,
        'farmcam_http_request_duration_seconds_count{method="GET",route="/api/invoices/fetch-invoices/:customerId"}',
      ),
    ).toBe(3);
    // Buckets are cumulative and end at +Inf with the count, as Prometheus reads a histogram.
    const route = 'method="GET",route="/api/invoices/fetch-invoices/:customerId"';
    const buckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10].map(
      (bound) =>
        added(text, `farmcam_http_request_duration_seconds_bucket{${route},le="${bound}"}`),
    );
    expect(buckets).toEqual([...buckets].sort((a, b) => a - b));
    expect(buckets.at(-1)).toBe(3);
    expect(added(text, `farmcam_http_request_duration_seconds_bucket{${route},le="+Inf"}`)).toBe(3);
    expect(added(text, `farmcam_http_request_duration_seconds_sum{${route}}`)).toBeGreaterThan(0);
    expect(text).toContain('route="/api/auth/login"');
    expect(text).toContain('route="unmatched"');
    expect(text).not.toContain(customerId);
    expect(text).not.toContain(loginToken);
    expect(text).not.toContain(metricsToken);
  });

  it('counts a 5xx as a server error of its route', async () => {
    // The app's routes answer 5xx only when something breaks; a bare app shows the hook alone.
    const app = Fastify();
    await app.register(metricsPlugin, { token: metricsToken });
    app.get('/broken/:id', async () => {
      throw new Error('boom');
    });
    await app.ready();
    const series = 'farmcam_http_server_errors_total{method="GET",route="/broken/:id"}';
    const before = sampleValue(
      (await app.inject({ url: '/metrics', headers: bearer() })).body,
      series,
    );
    expect((await app.inject({ url: '/broken/42' })).statusCode).toBe(500);
    const after = sampleValue(
      (await app.inject({ url: '/metrics', headers: bearer() })).body,
      series,
    );
    expect(after - before).toBe(1);
    await app.close();
  });

  it('is not served when no METRICS_TOKEN is configured', async () => {
    const withoutToken = await createTestContext();
    try {
      const answer = await withoutToken.app.inject({
        method: 'GET',
        url: '/metrics',
        headers: { authorization: `Bearer ${metricsToken}` },
      });
      expect(answer.statusCode).toBe(404);
      expect(answer.json()).toMatchObject({ code: 'NOT_FOUND' });
    } finally {
      await withoutToken.close();
    }
  });
});

const bearer = () => ({ authorization: `Bearer ${metricsToken}` });
