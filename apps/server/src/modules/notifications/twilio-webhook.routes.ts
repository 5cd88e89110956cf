import type { FastifyInstance } from 'fastify';
import { AppError } from '../../errors.ts';
import { isTwilioSignatureValid } from '../../providers/messaging/twilio-messaging.ts';
import {
  twilioInboundPath,
  twilioStatusPath,
  type NotificationDelivery,
} from './notification-delivery.service.ts';

/**
 * Twilio's webhooks (decision 124): each text's fate (the StatusCallback we give with every
 * message) and replies to our number (set as the number's or messaging service's incoming
 * webhook). Both are signed with X-Twilio-Signature over the address Twilio called and the
 * posted fields, checked by the SDK's validateRequest with our auth token.
 */
export async function twilioWebhookRoutes(
  app: FastifyInstance,
  options: { delivery: NotificationDelivery; authToken: string; publicUrl: string },
) {
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 16 * 1024 },
    (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    },
  );

  function signedFields(request: { headers: Record<string, unknown>; body: unknown; url: string }) {
    const signature = request.headers['x-twilio-signature'];
    const fields = (request.body ?? {}) as Record<string, string>;
    const url = `${options.publicUrl}${request.url}`;
    if (
      typeof signature !== 'string' ||
      !isTwilioSignatureValid(options.authToken, signature, url, fields)
    ) {
      throw new AppError('FORBIDDEN', 'The Twilio signature does not match.');
    }
    return fields;
  }

  app.post(twilioStatusPath, { schema: { hide: true } }, async (request, reply) => {
    const fields = signedFields(request);
    if (fields.MessageSid && fields.MessageStatus) {
      await options.delivery.recordSmsStatus({
        messageId: fields.MessageSid,
        status: fields.MessageStatus,
        errorCode: fields.ErrorCode,
      });
    }
    return reply.code(204).send();
  });

  app.post(twilioInboundPath, { schema: { hide: true } }, async (request, reply) => {
    const fields = signedFields(request);
    if (fields.From && typeof fields.Body === 'string') {
      await options.delivery.recordSmsReply({ from: fields.From, body: fields.Body });
    }
    // An empty TwiML answer: Twilio itself answers STOP and START with its own confirmations.
    return reply
      .type('text/xml')
      .send('<?xml version="1.0" encoding="UTF-8"?><Response></Response>');
  });
}
