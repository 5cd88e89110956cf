import {
  dataCapResumeResponse,
  errorBody,
  iccidParams,
  spendAlertBody,
  spendAlertResponse,
} from '@farmcam/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requestContext, requireAbility, requireCameraAccess } from '../auth/auth.plugin.ts';
import type { DataCaps } from './data-caps.service.ts';
import type { SpendAlerts } from './spend-alerts.service.ts';

const errors = { 400: errorBody, 401: errorBody, 403: errorBody, 404: errorBody, 503: errorBody };

/** Budget protection (decision 095): "Resume until the end of the month", the spend alert. */
export const budgetRoutes: FastifyPluginAsyncZod<{
  dataCaps: DataCaps;
  spendAlerts: SpendAlerts;
}> = async (app, { dataCaps, spendAlerts }) => {
  app.post(
    '/cameras/data-cap/:iccid/resume',
    {
      schema: {
        tags: ['cameras'],
        operationId: 'resumeCameraData',
        summary:
          "Let a camera's data paused at the allowance through again until the end of the month (owner and managers)",
        security: [{ bearer: [] }],
        params: iccidParams,
        response: { 200: dataCapResumeResponse, ...errors },
      },
    },
    async (request) => {
      const { customerId, principal, access } = requireAbility(request, 'manageCameras');
      requireCameraAccess(access, request.params.iccid);
      return dataCaps.resume(principal, customerId, request.params.iccid, requestContext(request));
    },
  );

  app.get(
    '/account/spend-alert',
    {
      schema: {
        tags: ['billing'],
        operationId: 'getSpendAlert',
        summary: "The account's monthly spend alert and what this month's invoices come to (owner)",
        security: [{ bearer: [] }],
        response: { 200: spendAlertResponse, ...errors },
      },
    },
    async (request) => {
      const { customerId } = requireAbility(request, 'manageBilling');
      return spendAlerts.getSpendAlert(customerId);
    },
  );

  app.put(
    '/account/spend-alert',
    {
      schema: {
        tags: ['billing'],
        operationId: 'updateSpendAlert',
        summary: "Set or remove the account's monthly spend alert (owner)",
        security: [{ bearer: [] }],
        body: spendAlertBody,
        response: { 200: spendAlertResponse, ...errors },
      },
    },
    async (request) => {
      const { customerId, principal } = requireAbility(request, 'manageBilling');
      return spendAlerts.saveSpendAlert(
        principal,
        customerId,
        request.body.amountMinor,
        requestContext(request),
      );
    },
  );
};
