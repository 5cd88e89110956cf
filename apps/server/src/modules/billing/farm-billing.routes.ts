/**
 * The farm's Billing page: every camera's bills in one place, what is due, paying them all, the billing details and one card for every camera (decisions 127-129).
 * Writes accept an `Idempotency-Key` header: a retry with the same key is applied once.
 */
import {
  billingDetails,
  billingDetailsBody,
  cardSetupResponse,
  errorBody,
  farmBillingResponse,
  farmInvoicesQuery,
  payAllBody,
  payAllResponse,
} from '@farmcam/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  errors,
  writeErrors,
  idempotencyHeaders,
  idempotencyKeyOf,
  farmOwner,
  security,
} from './billing-route-guards.ts';
import type { FarmBillingService } from './farm-billing.service.ts';

export const farmBillingRoutes: FastifyPluginAsyncZod<{
  farm: FarmBillingService;
}> = async (app, { farm }) => {
  // ── The farm's Billing page: every camera's bills in one place (decisions 127–129) ──────────

  app.get(
    '/billing/farm',
    {
      schema: {
        tags: ['billing'],
        operationId: 'getFarmBilling',
        summary:
          "Every camera's invoices (filtered), what is due now, the next bills, each camera's card and the billing details",
        security,
        querystring: farmInvoicesQuery,
        response: { 200: farmBillingResponse, ...errors, 503: errorBody },
      },
    },
    async (request) => {
      const { customerId } = farmOwner(request);
      return farm.farmBilling(customerId, request.query);
    },
  );

  app.get(
    '/billing/farm/invoices.csv',
    {
      schema: {
        tags: ['billing'],
        operationId: 'downloadFarmInvoicesCsv',
        summary: 'The filtered invoices as a CSV for the accountant (UK dates, pounds, VAT apart)',
        security,
        querystring: farmInvoicesQuery,
        response: { 200: z.string().describe('text/csv'), ...errors },
      },
    },
    async (request, reply) => {
      const { customerId } = farmOwner(request);
      const csv = await farm.invoicesCsv(customerId, request.query);
      return reply
        .type('text/csv; charset=utf-8')
        .header('cache-control', 'no-store')
        .header(
          'content-disposition',
          `attachment; filename="farmcam-invoices-${new Date().toISOString().slice(0, 10)}.csv"`,
        )
        .send(csv);
    },
  );

  app.post(
    '/billing/farm/pay-all',
    {
      config: { idempotent: true },
      schema: {
        tags: ['billing'],
        operationId: 'payAllInvoices',
        summary:
          "Pay every open invoice, each through its own camera's billing account; the result per invoice",
        security,
        headers: idempotencyHeaders,
        body: payAllBody,
        response: { 200: payAllResponse, ...writeErrors },
      },
    },
    async (request) => {
      const { customerId, actor } = farmOwner(request);
      return farm.payAll(customerId, request.body.amount, idempotencyKeyOf(request), actor);
    },
  );

  app.get(
    '/billing/farm/details',
    {
      schema: {
        tags: ['billing'],
        operationId: 'getBillingDetails',
        summary: 'The billing address and VAT number invoices carry',
        security,
        response: { 200: z.object({ details: billingDetails.nullable() }), ...errors },
      },
    },
    async (request) => {
      const { customerId } = farmOwner(request);
      return farm.billingDetails(customerId);
    },
  );

  app.put(
    '/billing/farm/details',
    {
      schema: {
        tags: ['billing'],
        operationId: 'saveBillingDetails',
        summary:
          "Set the billing address and VAT number on every camera's billing account; future invoices carry them",
        security,
        body: billingDetailsBody,
        response: { 200: z.object({ details: billingDetails.nullable() }), ...writeErrors },
      },
    },
    async (request) => {
      const { customerId, actor } = farmOwner(request);
      return farm.saveBillingDetails(customerId, request.body, actor);
    },
  );

  app.post(
    '/billing/farm/card-for-every-camera',
    {
      config: { idempotent: true },
      schema: {
        tags: ['billing'],
        operationId: 'startCardForEveryCamera',
        summary:
          "The page(s) where one card becomes every camera's default card (one page, or one per camera with Stripe)",
        security,
        headers: idempotencyHeaders,
        response: { 200: cardSetupResponse, ...writeErrors },
      },
    },
    async (request) => {
      const { customerId, actor } = farmOwner(request);
      return farm.cardForEveryCamera(customerId, idempotencyKeyOf(request), actor);
    },
  );
};
