import { describe, expect, it } from 'vitest';
import { ApiError } from './api-client.ts';
import { createQueryClient } from './query-client.ts';

describe('query client retry rule', () => {
  const retry = createQueryClient().getDefaultOptions().queries?.retry;
  const shouldRetry = (status: ApiError['status'], failureCount = 0) =>
    typeof retry === 'function' && retry(failureCount, new ApiError(status, undefined, false, ''));

  it('never retries a 4xx answer or a time-out', () => {
    for (const status of [400, 401, 403, 404, 429] as const)
      expect(shouldRetry(status)).toBe(false);
    expect(shouldRetry('TIMEOUT_ERROR')).toBe(false);
    expect(shouldRetry('PARSING_ERROR')).toBe(false);
  });

  it('retries a failed connection or a 5xx twice', () => {
    expect(shouldRetry('FETCH_ERROR')).toBe(true);
    expect(shouldRetry(503, 1)).toBe(true);
    expect(shouldRetry(503, 2)).toBe(false);
  });
});
