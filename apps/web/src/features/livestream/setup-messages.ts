/**
 * docs/requirements.md#errors livestream texts. `reason` is the server's message when it gave one (our API answers
 * `{ code, message }`), else the spec's default for that step.
 */
import { errorMessage } from '../../lib/api-client.ts';

export const noCameraSelectedMessage = 'No camera selected';

/**
 * "<what failed>: <reason>. <what to do>": the server's reason, else the spec's default one;
 * a reason that only repeats the first words is left out, and a reason's own full stop is not
 * doubled.
 */
function failure(what: string, error: unknown, specDefault: string, advice: string): string {
  const reason = errorMessage(error, specDefault)
    .trim()
    .replace(/[.\s]+$/, '');
  if (reason === '' || reason.toLowerCase() === what.toLowerCase()) return `${what}. ${advice}`;
  return `${what}: ${reason}. ${advice}`;
}

export const setupCameraFailure = (error: unknown) =>
  failure(
    'Failed to setup camera',
    error,
    'Camera setup failed',
    'Please try again or contact support.',
  );

export const configureFailure = (error: unknown) =>
  failure(
    'Failed to configure RTSP',
    error,
    'RTSP configuration failed',
    'Please try again or contact support.',
  );

export const previewFailure = (error: unknown) =>
  failure(
    'Failed to start preview streaming',
    error,
    'Failed to start preview streaming',
    "This won't affect your setup.",
  );

export const immediateStreamingFailure = (error: unknown) =>
  failure(
    'Failed to start immediate streaming',
    error,
    'Failed to start immediate streaming',
    'Please try again or contact support.',
  );

/** docs/requirements.md#states stage texts under the progress bars. */
export function setupStage(progress: number, hasFailed = false): string {
  if (hasFailed) return 'Camera setup did not finish';
  if (progress >= 100) return 'Camera ready';
  if (progress < 30) return 'Connecting to the camera…';
  if (progress < 60) return 'Opening the camera’s stream port…';
  if (progress < 90) return 'Checking the video stream…';
  return 'Finalising…';
}

export function configureStage(progress: number, hasFailed = false): string {
  if (hasFailed) return 'Stream configuration did not finish';
  if (progress >= 100) return 'Stream configured';
  if (progress < 40) return 'Saving your schedule…';
  if (progress < 80) return 'Configuring the stream…';
  return 'Completing…';
}
