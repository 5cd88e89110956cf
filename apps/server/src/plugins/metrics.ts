/**
 * Prometheus metrics for one Fastify app (docs/decisions/071). Register it first, before any
 * route, in every process that serves HTTP (the API and the worker's probe server):
 *
 *   await app.register(metricsPlugin, { token: config.metricsToken, database });
 *
 * - Counts every answered request by method, ROUTE PATTERN (`/api/livestreaming/:id`, never the
 *   raw URL with its ids and tokens; requests matching no route share the label `unmatched`) and
 *   status class, with a latency histogram and a 5xx counter (lib/metrics.ts holds the names).
 * - Serves `GET /metrics` in Prometheus text format to `Authorization: Bearer <token>` (compared
 *   in constant time). Without a token the metrics are still counted but not served: /metrics
 *   answers 404 like any unknown path (the SPA's history fallback would otherwise answer it).
 * - With `database`, the job-queue gauges (depth, oldest due job per queue) are read from
 *   pg-boss's tables in the background: a scrape serves the last figures (a minute old at most)
 *   and never waits on the database (decision 102).
 * - Probes and /metrics itself are counted apart (`farmcam_probe_requests_total`), not in the
 *   HTTP series the error-rate alert reads.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, onResponseHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import type { DatabaseHandle } from '../db/client.ts';
import {
  createJobQueueStatsReader,
  isCustomerFacingRoute,
  recordHttpRequest,
  recordProbeAnswer,
  registry,
  setDataDirectoryForMetrics,
  setJobQueueStatsSource,
} from '../lib/metrics.ts';

export interface MetricsPluginOptions {
  /** METRICS_TOKEN; when absent /metrics is not served. */
  token?: string | undefined;
  /** Where the job-queue gauges are read from; without it they are left out. */
  database?: Pick<DatabaseHandle, 'executeSql'> | undefined;
  /** DATA_DIR, whose file system's free bytes are exported (the disk alert reads them). */
  dataDir?: string | undefined;
}

const digest = (value: string) => createHash('sha256').update(value).digest();

export const metricsPlugin = fp(
  async (app: FastifyInstance, options: MetricsPluginOptions) => {
    // Callback hooks: the answer is already sent, and no promise is made per request. Each
    // route gets its own, which knows its pattern: reading `request.routeOptions.url` builds an
    // object of 13 fields on every call (docs/decisions/090). Requests that match no route (the
    // not-found handler, which no route hook sees) are counted by the app's hook.
    app.addHook('onRoute', (route) => {
      const pattern = route.url;
      // Probes and scrapes have their own series: a draining instance's 503s are no customer's
      // failed request (decision 102).
      const count: onResponseHookHandler = isCustomerFacingRoute(pattern)
        ? (request, reply, done) => {
            recordHttpRequest(request.method, pattern, reply.statusCode, reply.elapsedTime / 1000);
            done();
          }
        : (_request, reply, done) => {
            recordProbeAnswer(pattern, reply.statusCode);
            done();
          };
      const own = route.onResponse;
      route.onResponse = own === undefined ? [count] : [...[own].flat(), count];
    });
    app.addHook('onResponse', (request, reply, done) => {
      if (request.is404) {
        recordHttpRequest(request.method, undefined, reply.statusCode, reply.elapsedTime / 1000);
      }
      done();
    });

    if (options.dataDir) setDataDirectoryForMetrics(options.dataDir);
    if (options.database) {
      const unset = setJobQueueStatsSource(createJobQueueStatsReader(options.database));
      app.addHook('onClose', async () => unset());
    }

    // Hashing both sides gives equal lengths for timingSafeEqual and hides the token's length.
    const expected = options.token ? digest(options.token) : undefined;
    app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
      // Answered here rather than thrown: the worker registers this plugin without the app's
      // error handler, and both answer in the one error model.
      if (!expected) {
        return reply.code(404).send({ code: 'NOT_FOUND', message: 'No route for GET /metrics' });
      }
      const header = request.headers.authorization ?? '';
      const presented = header.startsWith('Bearer ') ? header.slice('Bearer '.length).trim() : '';
      if (!timingSafeEqual(digest(presented), expected)) {
        return reply
          .code(401)
          .header('www-authenticate', 'Bearer realm="metrics"')
          .send({ code: 'UNAUTHENTICATED', message: 'A valid metrics token is needed' });
      }
      const body = await registry.metrics();
      return reply
        .header('content-type', registry.contentType)
        .header('cache-control', 'no-store')
        .send(body);
    });
  },
  { name: 'metrics' },
);
