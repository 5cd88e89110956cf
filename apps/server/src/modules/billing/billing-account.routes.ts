/**
 * A camera's billing account: which camera it pays for, its cards, the card forms and billing portal, its invoices (docs/requirements.md#api).
 * Writes accept an `Idempotency-Key` header: a retry with the same key is applied once.
 */
import {
  billingAccountResponse,
  billingCustomerBody,
  billingCustomerParams,
  customerSecretResponse,
  invoicesResponse,
  paymentMethodsResponse,
  portalSessionQuery,
  portalSessionResponse,
} from '@farmcam/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  errors,
  writeErrors,
  idempotencyHeaders,
  callerOf,
  security,
} from './billing-route-guards.ts';
import type { BillingAccountService } from './billing-account.service.ts';

export const billingAccountRoutes: FastifyPluginAsyncZod<{
  account: BillingAccountService;
}> = async (app, { account }) => {
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
      const { caller } = callerOf(request, 'read');
      return account.account(caller, request.params.customerId);
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
      const { caller } = callerOf(request, 'manageBilling');
      return account.paymentMethods(caller, request.params.customerId);
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
      const { caller, actor } = callerOf(request, 'manageBilling');
      return account.createPortalSession(
        caller,
        request.query.customerId,
        actor,
        request.query.purpose,
      );
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
      const { caller } = callerOf(request, 'activateSims');
      return account.createCustomerSecret(caller, request.body.customerId);
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
      const { caller } = callerOf(request, 'manageBilling');
      return account.invoices(caller, request.params.customerId);
    },
  );
};
