/**
 * One set of logger options for the HTTP app and the workers (docs/decisions/072): JSON lines,
 * credentials redacted, and the request or job a line belongs to added by the mixin. What a
 * person reads in a terminal is the same lines made readable on the way out (`LOG_FORMAT=pretty`,
 * development's default, docs/decisions/106); production writes the JSON as it is.
 */
import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { prettyFactory } from 'pino-pretty';
import type { JobRun } from './job-queue.ts';
import {
  redactedLogPaths,
  redactLogMessage,
  redactLogObject,
  serializeError,
  serializeRequest,
} from './log-redaction.ts';
import { logContextMixin } from './request-context.ts';

/** `json`: one JSON object per line, for log stores; `pretty`: one readable line per event. */
export type LogFormat = 'json' | 'pretty';

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

/**
 * A logger writing JSON lines to `stream` (stdout when absent). Every format goes through it:
 * `pretty` is a stream that rewrites the finished, redacted JSON (processLogDestination).
 */
export function createLogger(level: string, stream?: DestinationStream): Logger {
  return stream ? pino(loggerOptions(level), stream) : pino(loggerOptions(level));
}

/** Where the process's log goes in each format: stdout, as JSON or as readable lines. */
export function processLogDestination(format: LogFormat): DestinationStream | undefined {
  return format === 'pretty' ? prettyLogStream(pino.destination({ fd: 1, sync: true })) : undefined;
}

/**
 * The one line per job run. Its fields are written out (not left to the mixin) so the line reads
 * the same wherever it is logged from; the payload is never logged (it may be private).
 *
 * A scheduled run that went well is `debug`: the cron jobs run every minute or few, and their
 * counts and durations are in the metrics (decision 071). A run a request queued (a login mail,
 * a recording asked for, an activation) and a failed run are `info`, so one search still
 * follows a request into its jobs at the default level (docs/decisions/106).
 */
export function logJobRun(logger: Pick<Logger, 'info' | 'debug'>, run: JobRun): void {
  const level = run.requestId || run.outcome === 'failed' ? 'info' : 'debug';
  logger[level](
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

type LogLine = Record<string, unknown> & { level: number; msg?: string };

/** Fields a person does not need in a terminal: ids for joining lines in a log store. */
const idFields = ['pid', 'hostname', 'reqId', 'jobId', 'requestId'] as const;

/**
 * Reads the JSON lines pino writes (already redacted) and writes each as one line a person can
 * read: time, level, message, then any other fields as compact JSON. A request reads
 * `GET /api/plans 200 4.2 ms`, a job run `job send-login-mail ok in 35 ms`; a line written inside
 * a job starts with `[job-name]`; an error adds its message to the line and, at `error` and
 * above, its stack below. Colours when the terminal has them (NO_COLOR turns them off).
 */
export function prettyLogStream(
  output: { write(text: string): unknown },
  options: { colorize?: boolean } = {},
): DestinationStream {
  const format = prettyFactory({
    // When absent, pino-pretty's own guess: colours on a terminal that has them.
    ...(options.colorize === undefined ? {} : { colorize: options.colorize }),
    translateTime: 'SYS:HH:MM:ss',
    singleLine: true,
    ignore: idFields.join(','),
  });
  return {
    write(text: string) {
      let line: LogLine;
      try {
        line = JSON.parse(text) as LogLine;
      } catch {
        output.write(text);
        return;
      }
      const { readable, stack } = readableLine(line);
      output.write(format(readable) + (stack ? `${stack}\n` : ''));
    },
  };
}

/** The line reshaped for a person, and the error stack to print under it (errors only). */
export function readableLine(line: LogLine): { readable: LogLine; stack: string | undefined } {
  const fields: Record<string, unknown> = { ...line };
  const take = (key: string) => {
    const value = fields[key];
    delete fields[key];
    return value;
  };
  let message = String(take('msg') ?? '');
  if (message === 'request' && 'status' in fields) {
    const [method, url, status, responseTime] = ['method', 'url', 'status', 'responseTime'].map(
      take,
    );
    take('route');
    take('ip');
    message = `${String(method)} ${String(url)} ${String(status)} ${String(responseTime)} ms`;
  } else if (message === 'job run' && 'outcome' in fields) {
    const [job, outcome, durationMs, attempt] = ['job', 'outcome', 'durationMs', 'attempt'].map(
      take,
    );
    message = `job ${String(job)} ${String(outcome)} in ${String(durationMs)} ms`;
    if (typeof attempt === 'number' && attempt > 1) message += ` (attempt ${attempt})`;
  } else if (typeof fields.job === 'string') {
    message = `[${String(take('job'))}] ${message}`;
  }
  let stack: string | undefined;
  const error = fields.err as { message?: unknown; stack?: unknown } | undefined;
  if (error && typeof error === 'object') {
    take('err');
    if (typeof error.message === 'string' && !message.includes(error.message)) {
      message = message ? `${message}: ${error.message}` : error.message;
    }
    if (line.level >= 50 && typeof error.stack === 'string') {
      const frames = error.stack.split('\n').filter((frame) => /^\s+at /.test(frame));
      if (frames.length > 0) stack = frames.map((frame) => `    ${frame.trim()}`).join('\n');
    }
  }
  return { readable: { ...fields, msg: message } as LogLine, stack };
}
