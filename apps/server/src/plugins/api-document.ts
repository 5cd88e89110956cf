/**
 * The OpenAPI document at /api/docs/json (docs/decisions/085): the HTTP API under /api, written so
 * that a typed client can be generated from it. Each route's schema gives its `operationId`,
 * summary and `security` (`[{ bearer: [] }]` or `[]` for a public one); this file gives what the
 * document says once: who serves it, the tags, the contact. Redocly's recommended rules check it
 * (src/api-document.test.ts, with apps/server/redocly.yaml).
 */
import type { SwaggerOptions } from '@fastify/swagger';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import type { Config } from '../config/config.ts';

/** Every tag an operation may carry, with what a client author needs to know of it. */
export const apiTags = [
  { name: 'health', description: 'Probes for the load balancer and the orchestrator.' },
  {
    name: 'auth',
    description:
      'Sign-in: the e-mailed one-time link for customers, e-mail and password for staff; the session token goes in `Authorization: Bearer <token>`.',
  },
  {
    name: 'staff',
    description: 'Support staff: find a customer and open their portal (audited).',
  },
  {
    name: 'cameras',
    description: "The signed-in customer's cameras: plans and card states, SIM, router, data use.",
  },
  { name: 'coverage', description: 'The public mobile-signal checker for UK postcodes.' },
  {
    name: 'subscriptions',
    description:
      'A camera’s plan: the plans it can move to, the pro-rata preview, switching and renewing.',
  },
  {
    name: 'billing',
    description: 'Saved cards, the hosted billing portal and the pricing table’s customer secret.',
  },
  {
    name: 'pause',
    description: 'Pausing a plan until a chosen 1st of the month, and cancelling it.',
  },
  { name: 'invoices', description: 'A camera’s invoices.' },
  {
    name: 'activation',
    description:
      'The public activation wizard: SIM look-ups (throttled), pricing tables, checkout and the order it makes.',
  },
  {
    name: 'live view',
    description:
      'Watching a camera live: whether it can be watched and why not, joining its one pull, heartbeats, the HLS playlist, the owner’s switch per camera.',
  },
  {
    name: 'livestreaming',
    description:
      'Recording a camera’s stream on a schedule or on request, sharing it, and the public address of its latest clip.',
  },
  {
    name: 'activity',
    description:
      "The account's activity log: sign-ins and every change people, staff and the system made.",
  },
  {
    name: 'team',
    description:
      'The farm’s team: members invited by the owner with a role, for every camera or chosen ones, optionally until a last day.',
  },
  {
    name: 'notifications',
    description:
      'Each person’s own alert channels (e-mail, push, text) per kind of alert, quiet hours, push devices and the phone checked by a code.',
  },
];

export function apiDocumentOptions(
  config: Pick<Config, 'publicUrl' | 'supportEmail'>,
): SwaggerOptions {
  return {
    openapi: {
      info: {
        title: 'Farmcam Portal API',
        description: 'Every error answers `{ code, message }`. Authenticate with `Bearer <token>`.',
        version: '1.0.0',
        contact: { name: 'Farmcam support', email: config.supportEmail },
      },
      servers: [{ url: config.publicUrl, description: 'This portal' }],
      tags: apiTags,
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    },
    // The document is the API: the local billing engine's pages, the signed clip files, the embed
    // page and the outbox viewer are pages and files a browser opens, not calls a client makes.
    transform: (input) =>
      input.url.startsWith('/api/')
        ? jsonSchemaTransform(input)
        : { schema: { ...input.schema, hide: true }, url: input.url },
  };
}
