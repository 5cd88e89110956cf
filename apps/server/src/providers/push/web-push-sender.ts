import type { Agent } from 'node:https';
import webPush, { WebPushError } from 'web-push';
import { trackProviderCall } from '../../lib/provider-calls.ts';
import type { PushOutcome, PushSender } from './push.ts';

/** A push service's answer about the message or device, not a fault of the service. */
const isAnswer = (error: unknown): error is WebPushError =>
  error instanceof WebPushError && error.statusCode < 500 && error.statusCode !== 429;

/** Push through `web-push`: VAPID-signed (ES256 JWT) and aes128gcm-encrypted per RFC 8291. */
export function createWebPushSender(keys: {
  publicKey: string;
  privateKey: string;
  subject: string;
  timeoutMs?: number;
  /** Another HTTPS agent (a test's push service with its own certificate). */
  agent?: Agent;
}): PushSender {
  return {
    isAvailable: true,
    publicKey: keys.publicKey,
    send: (target, payload, options) =>
      // A device that is gone or a message refused for good is an answer: it does not count as
      // the push service failing (readyz, farmcam_provider_call_errors_total).
      trackProviderCall('push', 'send', async (): Promise<PushOutcome> => {
        try {
          await webPush.sendNotification(
            { endpoint: target.endpoint, keys: { p256dh: target.p256dh, auth: target.auth } },
            JSON.stringify(payload),
            {
              vapidDetails: {
                subject: keys.subject,
                publicKey: keys.publicKey,
                privateKey: keys.privateKey,
              },
              TTL: options.ttlSeconds,
              urgency: options.isUrgent ? 'high' : 'normal',
              contentEncoding: 'aes128gcm',
              timeout: keys.timeoutMs ?? 10_000,
              ...(keys.agent ? { agent: keys.agent } : {}),
            },
          );
          return { kind: 'sent' };
        } catch (error) {
          if (!isAnswer(error)) throw error;
          if (error.statusCode === 404 || error.statusCode === 410) return { kind: 'gone' };
          return {
            kind: 'refused',
            reason: `The push service refused the message (${error.statusCode}).`,
          };
        }
      }),
  };
}
