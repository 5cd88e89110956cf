/**
 * Refuses input no handler should ever see (docs/decisions/064): a NUL character (PostgreSQL
 * cannot store it in text and fails the query), a lone UTF-16 surrogate (not text at all: it
 * cannot be encoded to UTF-8 for the database or a mail), and JSON nested deeper than any of our
 * requests (recursive code further on, e.g. hashing a request, would run out of stack).
 *
 * One hook before validation, over the query, the path parameters and the parsed body, keys and
 * values alike, so every route is covered, also those without a schema.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../errors.ts';

/** Deeper than any request body or query the API takes (a few levels at most). */
export const maxInputDepth = 32;

const nulOrLoneSurrogate =
  /\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Whether the text holds a NUL or a surrogate without its pair. */
export const isUnacceptableText = (value: string) => nulOrLoneSurrogate.test(value);

export type InputProblem = 'bad-text' | 'too-deep';

/** Whether an object has no own enumerable key (an empty query or set of path parameters). */
function isEmptyObject(value: object): boolean {
  for (const key in value) if (Object.hasOwn(value, key)) return false;
  return true;
}

/** The first problem in a parsed value (walked without recursion, so depth cannot overflow). */
export function findInputProblem(value: unknown): InputProblem | undefined {
  // Most requests have no body and an empty query and path: nothing to walk, nothing to allocate
  // (docs/decisions/090).
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return isUnacceptableText(value) ? 'bad-text' : undefined;
  if (typeof value === 'object' && isEmptyObject(value)) return undefined;
  const pending: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  while (pending.length > 0) {
    const { value: current, depth } = pending.pop()!;
    if (typeof current === 'string') {
      if (isUnacceptableText(current)) return 'bad-text';
      continue;
    }
    if (typeof current !== 'object' || current === null || ArrayBuffer.isView(current)) continue;
    if (depth >= maxInputDepth) return 'too-deep';
    if (Array.isArray(current)) {
      for (const item of current) pending.push({ value: item, depth: depth + 1 });
      continue;
    }
    for (const key of Object.keys(current)) {
      if (isUnacceptableText(key)) return 'bad-text';
      pending.push({ value: (current as Record<string, unknown>)[key], depth: depth + 1 });
    }
  }
  return undefined;
}

const messages: Record<InputProblem, string> = {
  'bad-text':
    'Some text in the request has characters we cannot accept. Please retype it and try again.',
  'too-deep': 'The request is nested too deeply.',
};

/** The 400 for a request carrying such input, or undefined when it is clean. */
export function unacceptableInputError(request: FastifyRequest): AppError | undefined {
  const problem =
    findInputProblem(request.params) ??
    findInputProblem(request.query) ??
    findInputProblem(request.body);
  return problem ? new AppError('VALIDATION_FAILED', messages[problem]) : undefined;
}

export const inputGuardPlugin = fp(
  async (app: FastifyInstance) => {
    // A callback hook: it runs on every request, and needs no promise (docs/decisions/065).
    app.addHook('preValidation', (request, _reply, done) => {
      done(unacceptableInputError(request));
    });
  },
  { name: 'input-guard' },
);
