/**
 * docs/requirements.md#api: /subscriptions, /billing, /pause and /invoices. Each route resolves the billing
 * customer id against the signed-in customer (404 when it is not theirs) and calls the service.
 * Writes accept an `Idempotency-Key` header: a retry with the same key is applied once.
 */
import {
  activePauseResponse,
  billingAccountResponse,
  billingCustomerBody,
  billingCustomerParams,
  cancelPauseBody,
  changePlanBody,
  changePlanResponse,
  checkoutResponse,
  customerSecretResponse,
  eligiblePlansResponse,
  errorBody,
  invoicesResponse,
  pauseOptionsResponse,
  pauseResultResponse,
  pauseSubscriptionBody,
  paymentMethodsResponse,
  planChangePreview,
  planChangePreviewQuery,
  portalSessionQuery,
  portalSessionResponse,
  renewalPlansQuery,
  renewalPlansResponse,
  renewSubscriptionBody,
} from '@farmcam/contract';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Database } from '../../db/client.ts';
import {
  requestContext,
  requireAbility,
  requireCameraAccess,
  requireCustomerScope,
} from '../auth/auth.plugin.ts';
import type { Ability } from '../members/access.ts';
import { requireReachableBillingCustomer } from '../ownership/ownership.ts';
import type { Actor, BillingService } from './billing.service.ts';

const errors = { 400: errorBody, 401: errorBody, 403: errorBody, 404: errorBody };
const writeErrors = { ...errors, 409: errorBody, 422: errorBody, 503: errorBody };
const idempotencyHeaders = z.object({
  'idempotency-key': z
    .string()
    .optional()
    .describe('Repeating a write with the same key applies it once'),
});

/**
 * The caller, after checking their role may do this (403; `read` is any role) and the billing
 * account is theirs and belongs to cameras they may reach (404), decision 091.
 */
async function ownedBy(
  db: Database,
  request: FastifyRequest,
  billingCustomerId: string,
  ability: Ability | 'read',
) {
  const { customerId, principal, access } =
    ability === 'read' ? requireCustomerScope(request) : requireAbility(request, ability);
  await requireReachableBillingCustomer(db, access, customerId, billingCustomerId);
  const actor: Actor = { principal, ...requestContext(request) };
  return { customerId, principal, access, actor };
}

const idempotencyKeyOf = (request: FastifyRequest) => {
  const value = request.headers['idempotency-key'];
  return typeof value === 'string' && value !== '' ? value : undefined;
};

export const billingRoutes: FastifyPluginAsyncZod<{
  db: Database;
  billing: BillingService;
}> = async (app, { db, billing }) => {
  const security = [{ bearer: [] }];

  app.get(
    '/billing/account/:customerId',
    {
      schema: {
        tags: ['billing'],
        operationId: 'getBillingAccount',
        summary: 'Which camera a billing account pays for, to name it on Manage plan and Invoices',
        security,
        params: billingCustomerParams,
        response: { 200: billingAccountResponse, ...errors },
      },
    },
    async (request) => {
      // Any role that reaches the account: the page names its camera before it says what the
      // person may do there.
      await ownedBy(db, request, request.params.customerId, 'read');
      return billing.account(request.params.customerId);
    },
  );

  app.get(
    '/subscriptions/fetch-eligible-plans/:customerId',
    {
      schema: {
        tags: ['subscriptions'],
        operationId: 'listEligiblePlans',
        summary: 'The plans this camera can be on, marked against the one it is on',
        security,
        params: billingCustomerParams,
        response: { 200: eligiblePlansResponse, ...errors },
      },
    },
    async (request) => {
      await ownedBy(db, request, request.params.customerId, 'manageCameras');
      return billing.eligiblePlans(request.params.customerId);
    },
  );

  app.get(
    '/subscriptions/preview-change/:customerId',
    {
      schema: {
        tags: ['subscriptions'],
        operationId: 'previewPlanChange',
        summary: 'What switching to a plan now would charge (pro-rata)',
        security,
        params: billingCustomerParams,
        querystring: planChangePreviewQuery,
        response: { 200: planChangePreview, ...writeErrors },
      },
    },
    async (request) => {
      await ownedBy(db, request, request.params.customerId, 'manageCameras');
      return billing.previewPlanChange(request.params.customerId, request.query.newPlanId);
    },
  );

  app.post(
    '/subscriptions/change-plan',
    {
      config: { idempotent: true },
      schema: {
        tags: ['subscriptions'],
        operationId: 'changePlan',
        summary: 'Switch plan now; the pro-rata difference is invoiced and charged at once',
        security,
        headers: idempotencyHeaders,
        body: changePlanBody,
        response: { 200: changePlanResponse, ...writeErrors },
      },
    },
    async (request) => {
      const { actor } = await ownedBy(db, request, request.body.customerId, 'manageCameras');
      return billing.changePlan(
        request.body.customerId,
        request.body.newPlanId,
        idempotencyKeyOf(request),
        actor,
      );
    },
  );

  app.get(
    '/subscriptions/renewal-plans/:customerId/:iccid',
    {
      schema: {
        tags: ['subscriptions'],
        operationId: 'listRenewalPlans',
        summary: 'Plans a camera without an active subscription can be renewed on',
        security,
        params: billingCustomerParams.extend({
          iccid: z.string().regex(/^\d{19,20}$/, 'Enter the SIM number: 19 or 20 digits.'),
        }),
        querystring: renewalPlansQuery,
        response: { 200: renewalPlansResponse, ...errors },
      },
    },
    async (request) => {
      const { access } = await ownedBy(db, request, request.params.customerId, 'manageCameras');
      requireCameraAccess(access, request.params.iccid);
      return billing.renewalPlans(
        request.params.customerId,
        request.params.iccid,
        request.query.location,
      );
    },
  );

  app.post(
    '/subscriptions/renew',
    {
      config: { idempotent: true },
      schema: {
        tags: ['subscriptions'],
        operationId: 'startRenewalCheckout',
        summary: 'Start a hosted checkout for a new subscription on a camera',
        security,
        headers: idempotencyHeaders,
        body: renewSubscriptionBody,
        response: { 200: checkoutResponse, ...writeErrors },
      },
    },
    async (request) => {
      const { actor, customerId, principal, access } = await ownedBy(
        db,
        request,
        request.body.customerId,
        'manageCameras',
      );
      requireCameraAccess(access, request.body.iccid);
      return billing.startRenewal(
        {
          billingCustomerId: request.body.customerId,
          iccid: request.body.iccid,
          priceId: request.body.priceId,
          customerId,
          email: principal.customerEmail ?? principal.impersonation?.customerEmail ?? '',
        },
        idempotencyKeyOf(request),
        actor,
      );
    },
  );

  app.get(
    '/billing/all-payment-methods/:customerId',
    {
      schema: {
        tags: ['billing'],
        operationId: 'listPaymentMethods',
        summary: "The camera's saved cards, the default first",
        security,
        params: billingCustomerParams,
        response: { 200: paymentMethodsResponse, ...errors },
      },
    },
    async (request) => {
      await ownedBy(db, request, request.params.customerId, 'manageBilling');
      return billing.paymentMethods(request.params.customerId);
    },
  );

  app.get(
    '/billing/create-portal-session',
    {
      config: { idempotent: true },
      schema: {
        tags: ['billing'],
        operationId: 'createBillingPortalSession',
        summary: 'The hosted billing portal (cards, open invoices), to open in a new tab',
        security,
        headers: idempotencyHeaders,
        querystring: portalSessionQuery,
        response: { 200: portalSessionResponse, ...writeErrors },
      },
    },
    async (request) => {
      const { actor } = await ownedBy(db, request, request.query.customerId, 'manageBilling');
      return billing.createPortalSession(request.query.customerId, actor, request.query.purpose);
    },
  );

  app.post(
    '/billing/create-customer-secret',
    {
      config: { idempotent: true },
      schema: {
        tags: ['billing'],
        operationId: 'createCustomerSecret',
        summary: 'A short-lived secret that lets the hosted pricing table act for this customer',
        security,
        headers: idempotencyHeaders,
        body: billingCustomerBody,
        response: { 200: customerSecretResponse, ...writeErrors },
      },
    },
    async (request) => {
      await ownedBy(db, request, request.body.customerId, 'activateSims');
      return billing.createCustomerSecret(request.body.customerId);
    },
  );

  app.get(
    '/pause/pause-dates/:customerId',
    {
      schema: {
        tags: ['pause'],
        operationId: 'getPauseDates',
        summary: 'When a pause would start and the dates the plan can restart on',
        security,
        params: billingCustomerParams,
        response: { 200: pauseOptionsResponse, ...errors },
      },
    },
    async (request) => {
      await ownedBy(db, request, request.params.customerId, 'manageCameras');
      return billing.pauseOptions(request.params.customerId);
    },
  );

  app.post(
    '/pause/pause-subscription',
    {
      config: { idempotent: true },
      schema: {
        tags: ['pause'],
        operationId: 'pauseSubscription',
        summary: 'Pause from the next allowed 1st until the chosen restart date',
        security,
        headers: idempotencyHeaders,
        body: pauseSubscriptionBody,
        response: { 200: pauseResultResponse, ...writeErrors },
      },
    },
    async (request) => {
      const { actor } = await ownedBy(db, request, request.body.customer_id, 'manageCameras');
      return billing.pauseSubscription(
        request.body.customer_id,
        request.body.resume_date,
        idempotencyKeyOf(request),
        actor,
      );
    },
  );

  app.get(
    '/pause/check-active-pause/:customerId',
    {
      schema: {
        tags: ['pause'],
        operationId: 'getActivePause',
        summary: 'The scheduled or running pause, if any',
        security,
        params: billingCustomerParams,
        response: { 200: activePauseResponse, ...errors },
      },
    },
    async (request) => {
      await ownedBy(db, request, request.params.customerId, 'read');
      return billing.activePause(request.params.customerId);
    },
  );

  app.post(
    '/pause/cancel-pause-subscription',
    {
      config: { idempotent: true },
      schema: {
        tags: ['pause'],
        operationId: 'cancelPause',
        summary: 'Cancel a scheduled pause (a running one restarts on the earliest 1st)',
        security,
        headers: idempotencyHeaders,
        body: cancelPauseBody,
        response: { 200: pauseResultResponse, ...writeErrors },
      },
    },
    async (request) => {
      const { actor } = await ownedBy(db, request, request.body.customer_id, 'manageCameras');
      return billing.cancelPause(request.body.customer_id, idempotencyKeyOf(request), actor);
    },
  );

  app.get(
    '/invoices/fetch-invoices/:customerId',
    {
      schema: {
        tags: ['invoices'],
        operationId: 'listInvoices',
        summary: "The camera's invoices, newest first (no paging)",
        security,
        params: billingCustomerParams,
        response: { 200: invoicesResponse, ...errors },
      },
    },
    async (request) => {
      await ownedBy(db, request, request.params.customerId, 'manageBilling');
      return billing.invoices(request.params.customerId);
    },
  );
};
