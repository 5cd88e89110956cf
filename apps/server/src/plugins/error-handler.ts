import type { FastifyError, FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { AppError } from '../errors.ts';

interface ValidationIssue {
  message?: string;
  instancePath?: string;
  params?: { issue?: { path?: PropertyKey[]; message?: string } };
}

function describeValidation(issues: ValidationIssue[], context: string | undefined): string {
  const first = issues[0];
  const message = first?.params?.issue?.message ?? first?.message ?? 'Invalid request';
  const field = first?.instancePath?.replace(/^\//, '').replaceAll('/', '.');
  if (!field) return message;
  return `${context === 'body' || !context ? '' : `${context} `}${field}: ${message}`.trim();
}

/** One error model: every error answers `{ code, message }`; 5xx never shows internals. */
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
          message: describeValidation(
            error.validation as unknown as ValidationIssue[],
            error.validationContext,
          ),
        });
      }
      const status = error.statusCode ?? 500;
      if (status >= 400 && status < 500) {
        // Fastify's own client errors: bad JSON, unsupported media type, body too large …
        const code =
          status === 413
            ? 'PAYLOAD_TOO_LARGE'
            : status === 404
              ? 'NOT_FOUND'
              : status === 429
                ? 'RATE_LIMITED'
                : 'VALIDATION_FAILED';
        return reply.code(status).send({ code, message: error.message });
      }
      request.log.error({ err: error }, 'Unhandled error');
      return reply
        .code(500)
        .send({ code: 'INTERNAL', message: 'Something went wrong on our side. Please try again.' });
    });
  },
  { name: 'error-handler' },
);
