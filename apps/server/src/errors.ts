/** The one error model: services throw AppError; the error handler answers `{ code, message }`. */
export const errorStatus = {
  VALIDATION_FAILED: 400,
  INVALID_TOKEN: 400,
  UNAUTHENTICATED: 401,
  INVALID_CREDENTIALS: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  URI_TOO_LONG: 414,
  UNSUPPORTED_MEDIA_TYPE: 415,
  UNPROCESSABLE: 422,
  LOCKED: 423,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  PROVIDER_UNAVAILABLE: 503,
  /** The database cannot be reached (docs/decisions/102): nothing the client did, try again. */
  TEMPORARILY_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof errorStatus;

export class AppError extends Error {
  constructor(
    public readonly code: ErrorCode,
    message: string,
    /** Extra headers for the answer, e.g. Retry-After. */
    public readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'AppError';
  }

  get statusCode(): number {
    return errorStatus[this.code];
  }
}

export const notFound = (message = 'Not found') => new AppError('NOT_FOUND', message);
export const forbidden = (message = 'You do not have access to this') =>
  new AppError('FORBIDDEN', message);
export const unauthenticated = (message = 'Please sign in') =>
  new AppError('UNAUTHENTICATED', message);
