import { describe, expect, it } from 'vitest';
import { ApiError } from '../../lib/api-client.ts';
import { configureFailure, previewFailure, setupCameraFailure } from './setup-messages.ts';

const refusal = (message: string) =>
  new ApiError(429, { code: 'RATE_LIMITED', message }, false, 'Too Many Requests');

describe('setup failure messages', () => {
  it('does not repeat the step when the server gave no reason', () => {
    expect(previewFailure(new Error('offline'))).toBe(
      "Failed to start preview streaming. This won't affect your setup.",
    );
    expect(setupCameraFailure(new Error('offline'))).toBe(
      'Failed to setup camera: Camera setup failed. Please try again or contact support.',
    );
  });

  it("puts the server's reason in, without a doubled full stop", () => {
    expect(previewFailure(refusal('Too many recordings asked for this camera.'))).toBe(
      "Failed to start preview streaming: Too many recordings asked for this camera. This won't affect your setup.",
    );
    expect(configureFailure(refusal('Choose at least one hour'))).toBe(
      'Failed to configure RTSP: Choose at least one hour. Please try again or contact support.',
    );
  });
});
