import { escapeHtml, formatUkTimestamp } from '@farmcam/contract/rules';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { notFound } from '../../errors.ts';
import type { OutboxMailer } from '../../providers/mail/outbox-mailer.ts';

const outboxMessage = z.object({
  id: z.string(),
  to: z.string(),
  subject: z.string(),
  text: z.string(),
  html: z.string(),
  createdAt: z.string(),
});

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en-GB"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title><link rel="stylesheet" href="/dev/mail.css"><link rel="icon" href="/logo.svg" type="image/svg+xml"></head><body><main>${body}</main></body></html>`;

const styles = `body{font-family:system-ui,sans-serif;margin:0;background:#f4f6f4;color:#1d2a1f}main{max-width:900px;margin:0 auto;padding:24px}h1{font-size:1.4rem}table{width:100%;border-collapse:collapse;background:#fff}th,td{text-align:left;padding:10px;border-bottom:1px solid #e2e6e2;vertical-align:top}a{color:#1f5a2b}pre{white-space:pre-wrap;background:#fff;padding:16px;border-radius:6px}.note{color:#555}`;

/**
 * The local outbox (MAIL=outbox only): a viewer at /dev/mail and JSON at /dev/outbox, so the
 * e-mailed login link can be used without a mail server.
 */
export const devMailRoutes: FastifyPluginAsyncZod<{
  outbox: OutboxMailer;
}> = async (app, { outbox }) => {
  app.get(
    '/dev/outbox',
    {
      schema: {
        tags: ['dev'],
        operationId: 'listOutboxMessages',
        security: [],
        summary: 'Messages in the local outbox, newest first',
        querystring: z.object({
          to: z.string().trim().max(254).optional(),
          limit: z.coerce.number().int().min(1).max(200).default(50),
        }),
        response: { 200: z.array(outboxMessage) },
      },
    },
    async (request) => outbox.list(request.query),
  );

  app.get('/dev/mail.css', async (_request, reply) =>
    reply.type('text/css').header('cache-control', 'no-cache').send(styles),
  );

  app.get('/dev/mail', { schema: { hide: true } }, async (_request, reply) => {
    const messages = await outbox.list({ limit: 100 });
    const rows = messages
      .map(
        (message) =>
          `<tr><td>${escapeHtml(formatUkTimestamp(message.createdAt))}</td><td>${escapeHtml(message.to)}</td><td><a href="/dev/mail/${message.id}">${escapeHtml(message.subject)}</a></td></tr>`,
      )
      .join('');
    const body = `<h1>Local outbox</h1><p class="note">E-mails the portal would have sent (MAIL=outbox). Newest first. JSON: <a href="/dev/outbox">/dev/outbox</a>.</p>${
      messages.length
        ? `<table><thead><tr><th scope="col">Sent</th><th scope="col">To</th><th scope="col">Subject</th></tr></thead><tbody>${rows}</tbody></table>`
        : '<p>No e-mails yet. Request a login link on the sign-in page and it appears here.</p>'
    }`;
    return reply.type('text/html').header('cache-control', 'no-store').send(page('Outbox', body));
  });

  app.get(
    '/dev/mail/:id',
    { schema: { hide: true, params: z.object({ id: z.uuid('Unknown message') }) } },
    async (request, reply) => {
      const message = await outbox.find(request.params.id);
      if (!message) throw notFound('No such message in the outbox');
      // The message's own HTML is shown as sent: it carries inline styles and no scripts.
      return reply
        .type('text/html')
        .header('cache-control', 'no-store')
        .header(
          'content-security-policy',
          "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'",
        )
        .send(message.html);
    },
  );
};
