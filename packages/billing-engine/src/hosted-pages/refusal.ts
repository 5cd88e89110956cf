/**
 * A request the hosted pages refuse outright (a card form posted with JSON numbers, another site
 * moving the test clock): answered in the portal's error model, `{ code, message }` with its
 * status, by the pages' own error handler (hosted-pages.routes.ts), which hands every other
 * error on to the app's.
 */
export class HostedPageRefusal extends Error {
  constructor(
    readonly code: 'VALIDATION_FAILED' | 'FORBIDDEN',
    message: string,
  ) {
    super(message);
    this.name = 'HostedPageRefusal';
  }

  get statusCode(): number {
    return this.code === 'FORBIDDEN' ? 403 : 400;
  }
}
