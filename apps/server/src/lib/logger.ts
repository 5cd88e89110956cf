/**
 * One set of logger options for the HTTP app and the workers (docs/decisions/072): JSON lines,
 * credentials redacted, and the request or job a line belongs to added by the mixin.
 */
import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import type { JobRun } from './job-queue.ts';
import {
  redactedLogPaths,
  redactLogMessage,
  redactLogObject,
  serializeError,
  serializeRequest,
} from './log-redaction.ts';
import { logContextMixin } from './request-context.ts';

export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    // URLs carry login tokens and billing session ids (docs/decisions/061).
    serializers: { req: serializeRequest, err: serializeError },
    redact: redactedLogPaths,
    // Card numbers, Stripe secrets and URL passwords in any string, sensitive keys at any depth.
    formatters: { log: redactLogObject },
    hooks: { logMethod: redactLogMessage },
    mixin: logContextMixin,
  };
}

/** The process's logger: services log through it, and the HTTP app's log is its child. */
export function createLogger(level: string, stream?: DestinationStream): Logger {
  return stream ? pino(loggerOptions(level), stream) : pino(loggerOptions(level));
}

/**
 * The one line per job run. Its fields are written out (not left to the mixin) so the line reads
 * the same wherever it is logged from; the payload is never logged (it may be private).
 */
export function logJobRun(logger: Pick<Logger, 'info'>, run: JobRun): void {
  logger.info(
    {
      job: run.name,
      jobId: run.id,
      ...(run.requestId ? { requestId: run.requestId } : {}),
      attempt: run.attempt,
      outcome: run.outcome,
      durationMs: run.durationMs,
    },
    'job run',
  );
}
