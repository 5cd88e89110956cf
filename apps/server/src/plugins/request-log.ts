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
import { probeRoutes } from '../lib/probe-paths.ts';
import { bindsRequestId, requestIdHeader, runInLogContext } from '../lib/request-context.ts';

type LogMethod = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/**
 * The request's logger (`request.log`, `reply.log`), made real only when something logs through
 * it. Fastify asks for a child logger on every request; a pino child costs an object, a copy of
 * the formatters and the `reqId` binding turned into JSON (about 0.5 µs with Fastify's check of
 * the result), and at `LOG_LEVEL=warn` nearly every request writes no line at all
 * (docs/decisions/090). So this stands in: a method below the parent's level returns at once,
 * and the first line written (or a `child()`) makes the pino child, bound to `reqId` and marked
 * so the mixin does not add `reqId` a second time. Lines read exactly as a pino child's.
 */
class LazyRequestLogger {
  #logger: FastifyBaseLogger | undefined;
  readonly #parent: FastifyBaseLogger;
  readonly #bindings: Record<string, unknown>;

  constructor(parent: FastifyBaseLogger, bindings: Record<string, unknown>) {
    this.#parent = parent;
    this.#bindings = bindings;
  }

  /** The pino child, made on first use. */
  get logger(): FastifyBaseLogger {
    this.#logger ??= markedChild(this.#parent, this.#bindings);
    return this.#logger;
  }

  get level(): string {
    return (this.#logger ?? this.#parent).level;
  }

  set level(level: string) {
    this.logger.level = level;
  }

  isLevelEnabled(level: string): boolean {
    return (
      (this.#logger ?? this.#parent) as unknown as Pick<Logger, 'isLevelEnabled'>
    ).isLevelEnabled(level);
  }

  #write(method: LogMethod, args: unknown[]): void {
    if (this.#logger === undefined && !this.isLevelEnabled(method)) return;
    const logger = this.logger;
    (logger[method] as (...values: unknown[]) => void).apply(logger, args);
  }

  // Methods on the prototype, so a request allocates only this object.
  fatal(...args: unknown[]): void {
    this.#write('fatal', args);
  }
  error(...args: unknown[]): void {
    this.#write('error', args);
  }
  warn(...args: unknown[]): void {
    this.#write('warn', args);
  }
  info(...args: unknown[]): void {
    this.#write('info', args);
  }
  debug(...args: unknown[]): void {
    this.#write('debug', args);
  }
  trace(...args: unknown[]): void {
    this.#write('trace', args);
  }
  silent(): void {}

  child(bindings: Record<string, unknown>, options?: object): FastifyBaseLogger {
    return this.logger.child(bindings, options);
  }
}

/** A pino child bound to `reqId`, marked so the mixin does not add `reqId` again. */
function markedChild(
  logger: FastifyBaseLogger,
  bindings: Record<string, unknown>,
  options?: object,
): FastifyBaseLogger {
  const child = logger.child(bindings, options);
  (child as unknown as { [bindsRequestId]: boolean })[bindsRequestId] = true;
  return child;
}

function hasOwnKeys(value: object): boolean {
  for (const key in value) if (Object.hasOwn(value, key)) return true;
  return false;
}

/**
 * Fastify's `childLoggerFactory`: the request's logger, bound to `reqId` (see LazyRequestLogger).
 * A route with its own log level or serializers gets its pino child at once, as Fastify would.
 */
export function requestChildLogger(
  logger: FastifyBaseLogger,
  bindings: Record<string, unknown>,
  options: object,
): FastifyBaseLogger {
  // Fastify's stand-in when logging is off has no levels to ask: its child is itself, for free.
  const canAskLevel = typeof (logger as Partial<Logger>).isLevelEnabled === 'function';
  if (!canAskLevel || hasOwnKeys(options)) return markedChild(logger, bindings, options);
  return new LazyRequestLogger(logger, bindings) as unknown as FastifyBaseLogger;
}

/**
 * Load balancers and Prometheus call these every few seconds on every instance: their lines
 * would bury the customers' ones, so a probe or scrape is logged only when it did not answer 2xx
 * (its count stays in the metrics).
 */

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
    if (reply.statusCode < 300 && probeRoutes.has(request.routeOptions.url ?? '')) return done();
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
