/**
 * docs/requirements.md#api activation rows. Public (a new visitor activates before having an account), except the
 * billing account of a signed-in customer. Validation failures answer `{ code, message }` with a
 * message the wizard shows as it is: 404 for every SIM that cannot be activated (unknown or not
 * for sale alike, docs/decisions/063), 429 too many failed look-ups (with Retry-After).
 */
import {
  activationBillingCustomerBody,
  activationBillingCustomerResponse,
  activationCheckoutBody,
  activationCheckoutResponse,
  activationConfigResponse,
  checkSolarSimBody,
  errorBody,
  logPriceTableBody,
  orderParams,
  orderStatusResponse,
  pricingTableParams,
  pricingTableResponse,
  simValidationResponse,
  solarCheckResponse,
  successBody,
  validateActivationCodeBody,
  validateIccidBody,
} from '@farmcam/contract';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireAbility } from '../auth/auth.plugin.ts';
import type { ActivationCaller, ActivationService } from './activation.service.ts';

const lookupErrors = {
  400: errorBody,
  404: errorBody,
  409: errorBody,
  429: errorBody,
};

const wizardSessionPattern = /^[A-Za-z0-9-]{8,64}$/;

const wizardHeaders = z.object({
  'x-activation-session': z
    .string()
    .optional()
    .describe('The wizard tab’s own random id: look-ups are limited per session as well as per IP'),
});

/**
 * The caller as the guessing limits see it: a signed-in session, or a visitor's wizard session on
 * its IP (a visitor can make up new ids, but the per-IP and global limits still hold).
 */
export function activationCaller(request: FastifyRequest): ActivationCaller {
  const principal = request.principal;
  const header = request.headers['x-activation-session'];
  const wizardSession =
    typeof header === 'string' && wizardSessionPattern.test(header) ? header : 'none';
  return {
    ip: request.ip,
    userAgent: request.headers['user-agent'],
    sessionKey: principal
      ? `session:${principal.sessionId}`
      : `visitor:${request.ip}:${wizardSession}`,
    principal,
  };
}

export const activationRoutes: FastifyPluginAsyncZod<{ activation: ActivationService }> = async (
  app,
  { activation },
) => {
  app.post(
    '/activation/validate-activation-code',
    {
      schema: {
        tags: ['activation'],
        operationId: 'validateActivationCode',
        security: [],
        summary: 'The SIM a 4-letter activation code belongs to (public, throttled)',
        description:
          'Failed look-ups are throttled per wizard session and per network with a doubling wait, ' +
          'and by a global guard for networks that keep failing; no SIM is ever locked.',
        headers: wizardHeaders,
        body: validateActivationCodeBody,
        response: { 200: simValidationResponse, ...lookupErrors },
      },
    },
    async (request) =>
      activation.validateActivationCode(request.body.activationCode, activationCaller(request)),
  );

  app.post(
    '/activation/validate-iccid',
    {
      schema: {
        tags: ['activation'],
        operationId: 'validateIccid',
        security: [],
        summary: 'Whether a SIM number (ICCID) can be activated (public, throttled)',
        headers: wizardHeaders,
        body: validateIccidBody,
        response: { 200: simValidationResponse, ...lookupErrors },
      },
    },
    async (request) => activation.validateIccid(request.body.iccid, activationCaller(request)),
  );

  app.post(
    '/activation/validate',
    {
      schema: {
        tags: ['activation'],
        operationId: 'revalidateSim',
        security: [],
        summary: 'Checks again, before the plans are shown, that the SIM is still for sale',
        headers: wizardHeaders,
        body: validateIccidBody,
        response: { 200: simValidationResponse, ...lookupErrors },
      },
    },
    async (request) => activation.validate(request.body.iccid, activationCaller(request)),
  );

  app.post(
    '/activation/check-solar-sim',
    {
      schema: {
        tags: ['activation'],
        operationId: 'checkSolarSim',
        security: [],
        summary: 'Whether the SIM is a solar SIM, and the pricing table for it in the region',
        headers: wizardHeaders,
        body: checkSolarSimBody,
        response: { 200: solarCheckResponse, ...lookupErrors },
      },
    },
    async (request) =>
      activation.checkSolarSim(
        request.body.iccid,
        request.body.location,
        activationCaller(request),
      ),
  );

  app.post(
    '/activation/log-price-table',
    {
      schema: {
        tags: ['activation'],
        operationId: 'logPricingTableShown',
        security: [],
        summary: 'Records which pricing table a visitor was shown (for support)',
        body: logPriceTableBody,
        response: { 200: successBody, 400: errorBody, 429: errorBody },
      },
    },
    async (request) =>
      activation.logPriceTable(
        {
          iccid: request.body['client-reference-id'],
          email: request.body['customer-email'],
          hasCustomerSession: Boolean(request.body['customer-session-client-secret']),
          pricingTableId: request.body.pricing_table_id,
        },
        activationCaller(request),
      ),
  );

  app.get(
    '/activation/config',
    {
      schema: {
        tags: ['activation'],
        operationId: 'getActivationConfig',
        security: [],
        summary: 'Which pricing table to draw, and the fallback tables and help links',
        response: { 200: activationConfigResponse },
      },
    },
    async () => activation.config(),
  );

  app.get(
    '/activation/orders/:orderId',
    {
      schema: {
        tags: ['activation'],
        operationId: 'getActivationOrder',
        security: [],
        summary: "The thank-you page's order: its plan and how far it has got (public)",
        description:
          'Order references are random and unguessable; an unknown one is 404, never "activated".',
        params: orderParams,
        response: { 200: orderStatusResponse, 400: errorBody, 404: errorBody },
      },
    },
    async (request) => activation.orderStatus(request.params.orderId),
  );

  app.get(
    '/activation/pricing-tables/:pricingTableId',
    {
      schema: {
        tags: ['activation'],
        operationId: 'getPricingTable',
        security: [],
        summary:
          'One of our own pricing tables (local billing): the plans of a region, solar or not',
        params: pricingTableParams,
        response: { 200: pricingTableResponse, 400: errorBody, 404: errorBody },
      },
    },
    async (request) => activation.pricingTable(request.params.pricingTableId),
  );

  app.post(
    '/activation/checkout',
    {
      schema: {
        tags: ['activation'],
        operationId: 'startActivationCheckout',
        security: [],
        summary: 'Our pricing table’s Subscribe: the hosted checkout for this SIM and plan',
        headers: wizardHeaders,
        body: activationCheckoutBody,
        response: { 200: activationCheckoutResponse, ...lookupErrors, 503: errorBody },
      },
    },
    async (request) =>
      activation.startCheckout(
        {
          pricingTableId: request.body.pricing_table_id,
          priceId: request.body.price_id,
          iccid: request.body.client_reference_id,
          email: request.body.customer_email,
          customerSessionSecret: request.body.customer_session_client_secret ?? null,
        },
        activationCaller(request),
      ),
  );

  app.post(
    '/activation/billing-customer',
    {
      schema: {
        tags: ['activation'],
        operationId: 'createActivationBillingCustomer',
        summary: 'Signed in: the billing account the new camera will have (one per camera)',
        security: [{ bearer: [] }],
        body: activationBillingCustomerBody,
        response: {
          200: activationBillingCustomerResponse,
          401: errorBody,
          403: errorBody,
          ...lookupErrors,
          503: errorBody,
        },
      },
    },
    async (request) => {
      // A new camera joins the owner's account and bills: the owner's alone (decision 091).
      const { customerId, principal } = requireAbility(request, 'activateSims');
      const email = principal.customerEmail ?? principal.impersonation?.customerEmail ?? '';
      return activation.billingCustomerFor(request.body, {
        ...activationCaller(request),
        customerId,
        email,
      });
    },
  );
};
