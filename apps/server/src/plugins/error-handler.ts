import type { Socket } from 'node:net';
import type {
  FastifyError,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  FastifyServerOptions,
} from 'fastify';
import fp from 'fastify-plugin';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { AppError, errorStatus, type ErrorCode } from '../errors.ts';
import { reportIfDatabaseUnreachable } from '../lib/database-outage.ts';
import { strictSecurityHeaders } from './security-headers.ts';

interface ValidationIssue {
  message?: string;
  instancePath?: string;
  params?: { issue?: { path?: PropertyKey[]; message?: string } };
}

/** Zod's own wording ("Invalid input: expected string, received number"), not ours. */
const zodDefaultMessage = /^(Invalid|Too (small|big)|Unrecognized key|Expected )/;

/** Fields whose problem is always the same sentence, whatever zod found wrong. */
const fieldSentences: Record<string, string> = {
  email: 'Please enter a valid e-mail address.',
  iccid: 'Enter the SIM number: 19 or 20 digits.',
  simIccid: 'Enter the SIM number: 19 or 20 digits.',
  sim_number: 'Enter the SIM number: 19 or 20 digits.',
  camera_id: 'Enter the SIM number: 19 or 20 digits.',
};

/** "startDate" or "resume_date" as words: "start date", "resume date". */
const fieldWords = (field: string): string =>
  field
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replaceAll('_', ' ')
    .toLowerCase();

/** A message as a sentence: capital first letter, full stop at the end. */
const asSentence = (text: string): string => {
  const trimmed = text.trim();
  // A message that opens with a field's own name (rtsp_port) keeps its spelling.
  const capitalised = /^\w+_/.test(trimmed)
    ? trimmed
    : trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capitalised) ? capitalised : `${capitalised}.`;
};

/**
 * A validation failure as a sentence a farmer understands, and the field it is about (a separate
 * property, never glued to the message: docs/decisions/014). Our contract's messages are kept;
 * zod's own wording is replaced by a sentence about the field.
 */
export function describeValidation(issues: ValidationIssue[]): {
  message: string;
  field?: string;
} {
  const first = issues[0];
  const raw = first?.params?.issue?.message ?? first?.message;
  const path = first?.params?.issue?.path;
  const field =
    path && path.length > 0
      ? path.map(String).join('.')
      : first?.instancePath?.replace(/^\//, '').replaceAll('/', '.') || undefined;
  const name = field?.split('.').at(-1);
  let message: string;
  if (raw && !zodDefaultMessage.test(raw)) message = asSentence(raw);
  else if (name && fieldSentences[name]) message = fieldSentences[name];
  else if (name && !/^\d+$/.test(name)) message = `Please check the ${fieldWords(name)}.`;
  else message = 'Please check the details you entered.';
  return field ? { message, field } : { message };
}

/**
 * Fastify's own client errors in plain words (its messages name internals, and some echo the
 * request back). Anything else in 4xx keeps its status with a generic sentence.
 */
const frameworkErrors: Record<string, { code: ErrorCode; message: string }> = {
  FST_ERR_CTP_EMPTY_JSON_BODY: {
    code: 'VALIDATION_FAILED',
    message: 'The request has no body. Send the details as JSON.',
  },
  FST_ERR_CTP_INVALID_JSON_BODY: {
    code: 'VALIDATION_FAILED',
    message: 'The request body is not valid JSON.',
  },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    code: 'UNSUPPORTED_MEDIA_TYPE',
    message: 'This kind of request body is not accepted here. Send JSON.',
  },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: {
    code: 'VALIDATION_FAILED',
    message: 'The request body does not match its stated length.',
  },
  FST_ERR_CTP_BODY_TOO_LARGE: { code: 'PAYLOAD_TOO_LARGE', message: 'The request is too large.' },
  FST_ERR_BAD_URL: { code: 'VALIDATION_FAILED', message: 'The web address is not valid.' },
  FST_ERR_MAX_PARAM_LENGTH: { code: 'URI_TOO_LONG', message: 'The web address is too long.' },
};

const byStatus: Partial<Record<number, { code: ErrorCode; message: string }>> = {
  400: { code: 'VALIDATION_FAILED', message: 'The request is not valid.' },
  404: { code: 'NOT_FOUND', message: 'Not found.' },
  413: { code: 'PAYLOAD_TOO_LARGE', message: 'The request is too large.' },
  414: { code: 'URI_TOO_LONG', message: 'The web address is too long.' },
  415: frameworkErrors.FST_ERR_CTP_INVALID_MEDIA_TYPE,
  429: { code: 'RATE_LIMITED', message: 'Too many requests. Please wait a moment and try again.' },
};

/** The answer for a client error Fastify (or a library) raised: `{ code, message }`, its status. */
export function describeClientError(error: {
  code?: string;
  statusCode?: number;
  message?: string;
}): { status: number; code: ErrorCode; message: string } {
  const known = error.code ? frameworkErrors[error.code] : undefined;
  if (known) return { status: errorStatus[known.code], ...known };
  const status = error.statusCode ?? 400;
  if (error.message && /prototype property/.test(error.message)) {
    return {
      status: 400,
      code: 'VALIDATION_FAILED',
      message: 'The request has a forbidden field name.',
    };
  }
  return { status, ...(byStatus[status] ?? byStatus[400]!) };
}

/**
 * Fastify's `frameworkErrors`: a malformed address (bad percent-encoding) or a path parameter over
 * the router's limit is answered before any hook runs, so this answer adds the headers itself.
 */
export function answerFrameworkError(
  isHttps: boolean,
): NonNullable<FastifyServerOptions['frameworkErrors']> {
  const headers = strictSecurityHeaders(isHttps);
  return (error: FastifyError, _request: FastifyRequest, reply: FastifyReply) => {
    const { status, code, message } = describeClientError(error);
    void reply.code(status).headers(headers).send({ code, message });
  };
}

/**
 * Fastify's `clientErrorHandler`: what Node's HTTP parser refuses (headers too large, a malformed
 * request line) never becomes a request; answer on the socket in the same model and headers.
 */
export function answerClientError(isHttps: boolean): (error: Error, socket: Socket) => void {
  const headers = strictSecurityHeaders(isHttps);
  return (error, socket) => {
    const errorCode = (error as NodeJS.ErrnoException).code;
    if (errorCode === 'ECONNRESET' || socket.destroyed) return;
    const [status, reason, answer] =
      errorCode === 'HPE_HEADER_OVERFLOW'
        ? [
            431,
            'Request Header Fields Too Large',
            { code: 'HEADERS_TOO_LARGE', message: 'The request headers are too large.' },
          ]
        : errorCode === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? [
              408,
              'Request Timeout',
              { code: 'REQUEST_TIMEOUT', message: 'The request took too long to arrive.' },
            ]
          : [
              400,
              'Bad Request',
              { code: 'VALIDATION_FAILED', message: 'The request is not valid HTTP.' },
            ];
    const body = JSON.stringify(answer);
    if (socket.writable) {
      const lines = Object.entries({
        ...headers,
        'content-type': 'application/json; charset=utf-8',
        'content-length': String(Buffer.byteLength(body)),
        connection: 'close',
      }).map(([name, value]) => `${name}: ${value}`);
      socket.write(`HTTP/1.1 ${status} ${reason}\r\n${lines.join('\r\n')}\r\n\r\n${body}`);
    }
    socket.destroy(error);
  };
}

/**
 * While the database cannot be reached (docs/decisions/102): a farmer's sentence, and how long
 * a client should wait before trying again (a restarted database is usually back within it).
 */
export const databaseUnavailableAnswer = {
  code: 'TEMPORARILY_UNAVAILABLE',
  message:
    'We cannot reach our records just now. Nothing you did caused this: please try again in a minute.',
} as const satisfies { code: ErrorCode; message: string };
export const databaseRetryAfterSeconds = 30;

/**
 * One error model: every error answers `{ code, message }` (validation failures add `field`);
 * 5xx never shows internals. An error meaning the database cannot be reached answers 503 with
 * Retry-After and is logged at most once per cause every 10 s (lib/database-outage.ts).
 */
export const errorHandlerPlugin = fp(
  async (app: FastifyInstance) => {
    app.setErrorHandler((error: FastifyError | AppError, request, reply) => {
      if (error instanceof AppError) {
        if (error.statusCode >= 500) request.log.error({ err: error }, error.message);
        return reply
          .code(error.statusCode)
          .headers(error.headers)
          .send({ code: error.code, message: error.message });
      }
      if (hasZodFastifySchemaValidationErrors(error)) {
        return reply.code(400).send({
          code: 'VALIDATION_FAILED',
          ...describeValidation(error.validation as unknown as ValidationIssue[]),
        });
      }
      const status = error.statusCode ?? 500;
      if (status >= 400 && status < 500) {
        const { code, message } = describeClientError(error);
        return reply.code(status).send({ code, message });
      }
      if (reportIfDatabaseUnreachable(error, { source: 'request', log: request.log })) {
        return reply
          .code(503)
          .header('retry-after', String(databaseRetryAfterSeconds))
          .send(databaseUnavailableAnswer);
      }
      request.log.error({ err: error }, 'Unhandled error');
      return reply
        .code(500)
        .send({ code: 'INTERNAL', message: 'Something went wrong on our side. Please try again.' });
    });
  },
  { name: 'error-handler' },
);
