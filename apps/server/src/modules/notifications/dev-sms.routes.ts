import { escapeHtml, formatUkTimestamp } from '@farmcam/contract/rules';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { LocalMessaging } from '../../providers/messaging/local-messaging.ts';
import type { NotificationDelivery } from './notification-delivery.service.ts';

const smsMessage = z.object({
  id: z.string(),
  sid: z.string(),
  direction: z.enum(['outbound', 'inbound']),
  to: z.string(),
  from: z.string(),
  body: z.string(),
  createdAt: z.string(),
});

const replyBody = z.object({
  from: z.string().regex(/^\+\d{8,15}$/, 'The phone number in E.164, +447700900123'),
  body: z.string().trim().min(1).max(160),
});

const ukTime = (iso: string) => formatUkTimestamp(iso);

/**
 * The local text messages (SMS=local, development only; decision 124): a page at /dev/sms like
 * the mail outbox, JSON at /dev/sms.json, and a reply box that acts as Twilio's inbound webhook
 * does, so STOP and START can be tried without a phone.
 */
export const devSmsRoutes: FastifyPluginAsyncZod<{
  messaging: LocalMessaging;
  delivery: NotificationDelivery;
}> = async (app, { messaging, delivery }) => {
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 4 * 1024 },
    (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    },
  );

  app.get(
    '/dev/sms.json',
    {
      schema: {
        tags: ['dev'],
        operationId: 'listLocalTextMessages',
        security: [],
        summary: 'Text messages of the local provider, newest first',
        response: { 200: z.array(smsMessage) },
      },
    },
    async () => messaging.list(),
  );

  app.get('/dev/sms', { schema: { hide: true } }, async (_request, reply) => {
    const messages = await messaging.list();
    const phones = [
      ...new Set(messages.filter((m) => m.direction === 'outbound').map((m) => m.to)),
    ];
    const rows = messages
      .map(
        (message) =>
          `<tr><td>${escapeHtml(ukTime(message.createdAt))}</td><td>${message.direction === 'outbound' ? `To ${escapeHtml(message.to)}` : `Reply from ${escapeHtml(message.from)}`}</td><td>${escapeHtml(message.body)}</td></tr>`,
      )
      .join('');
    const replyForm = phones.length
      ? `<h2>Reply as a phone</h2><form method="post" action="/dev/sms/reply"><label>From <select name="from">${phones.map((phone) => `<option>${escapeHtml(phone)}</option>`).join('')}</select></label> <label>Text <input name="body" value="STOP" maxlength="160" required></label> <button>Send reply</button></form>`
      : '';
    const body = `<h1>Local text messages</h1><p class="note">Texts the portal would have sent (SMS=local). Newest first. JSON: <a href="/dev/sms.json">/dev/sms.json</a>. E-mails: <a href="/dev/mail">/dev/mail</a>.</p>${
      messages.length
        ? `<table><thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">Text</th></tr></thead><tbody>${rows}</tbody></table>`
        : '<p>No text messages yet. Add your mobile number on the Notifications page and the code appears here.</p>'
    }${replyForm}`;
    return reply
      .type('text/html')
      .header('cache-control', 'no-store')
      .send(
        `<!doctype html><html lang="en-GB"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>Text messages</title><link rel="stylesheet" href="/dev/mail.css"><link rel="icon" href="/logo.svg" type="image/svg+xml"></head><body><main>${body}</main></body></html>`,
      );
  });

  app.post(
    '/dev/sms/reply',
    { schema: { hide: true, body: replyBody } },
    async (request, reply) => {
      await messaging.recordInbound(request.body.from, request.body.body);
      await delivery.recordSmsReply({ from: request.body.from, body: request.body.body });
      return request.headers['content-type']?.startsWith('application/json')
        ? reply.code(204).send()
        : reply.redirect('/dev/sms', 303);
    },
  );
};
