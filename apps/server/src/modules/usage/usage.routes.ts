import { dataUsageQuery, dataUsageResponse, errorBody, iccidParams } from '@farmcam/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireCameraAccess, requireCustomerScope } from '../auth/auth.plugin.ts';
import type { UsageService } from './usage.service.ts';

export const usageRoutes: FastifyPluginAsyncZod<{ usage: UsageService }> = async (
  app,
  { usage },
) => {
  app.get(
    '/data-usage/:iccid',
    {
      schema: {
        tags: ['cameras'],
        operationId: 'getDataUsage',
        summary: "A camera's data use per day (GB); the end date as endDate or endData",
        security: [{ bearer: [] }],
        params: iccidParams,
        querystring: dataUsageQuery,
        response: {
          200: dataUsageResponse,
          400: errorBody,
          401: errorBody,
          403: errorBody,
          404: errorBody,
        },
      },
    },
    async (request) => {
      // Every role reads the usage of the cameras it may reach (decision 091).
      const { customerId, access } = requireCustomerScope(request);
      requireCameraAccess(access, request.params.iccid);
      return usage.dailyUsage(customerId, request.params.iccid, request.query);
    },
  );
};
