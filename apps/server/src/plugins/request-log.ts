/**
 * The request id and the one log line per request (docs/decisions/072). Every hook and the
 * handler run inside the request's log context, entered in the first onRequest hook (the
 * context survives the body read, even one arriving after the headers: request-log.test.ts),
 * so services logging through the app's logger and jobs queued on the way carry the request id;
 * the id is echoed in X-Request-Id.
 */
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Logger } from 'pino';
import { redactUrl } from '../lib/log-redaction.ts';
import { bindsRequestId, requestIdHeader, runInLogContext } from '../lib/request-context.ts';

/**
 * Fastify's `childLoggerFactory`: its usual child (bound to `reqId`), marked so the mixin does
 * not add `reqId` a second time.
 */
export function requestChildLogger(
  logger: FastifyBaseLogger,
  bindings: Record<string, unknown>,
  options: object,
): FastifyBaseLogger {
  const child = logger.child(bindings, options);
  (child as unknown as { [bindsRequestId]: boolean })[bindsRequestId] = true;
  return child;
}

/**
 * Load balancers and Prometheus call these every few seconds on every instance: their lines
 * would bury the customers' ones, so a probe or scrape is logged only when it did not answer 2xx
 * (its count stays in the metrics).
 */
const quietRoutes = new Set(['/api/healthz', '/api/readyz', '/metrics']);

export const requestLogPlugin = fp(async (app: FastifyInstance) => {
  app.addHook('onRequest', (request, reply, done) => {
    reply.header(requestIdHeader, request.id);
    runInLogContext({ kind: 'request', reqId: request.id }, done);
  });
  app.addHook('onResponse', (request, reply, done) => {
    // Below `info` (LOG_LEVEL=warn) the line is not even built: redacting the URL costs.
    if (
      (request.log as Partial<Pick<Logger, 'isLevelEnabled'>>).isLevelEnabled?.('info') === false
    ) {
      return done();
    }
    if (reply.statusCode < 300 && quietRoutes.has(request.routeOptions.url ?? '')) return done();
    request.log.info(
      {
        method: request.method,
        route: request.routeOptions.url,
        url: redactUrl(request.url),
        status: reply.statusCode,
        responseTime: Math.round(reply.elapsedTime * 10) / 10,
        ip: request.ip,
      },
      'request',
    );
    done();
  });
});
