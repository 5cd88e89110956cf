import { dataCapResumeResponse, errorBody, iccidParams } from '@farmcam/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requestContext, requireAbility, requireCameraAccess } from '../auth/auth.plugin.ts';
import type { DataCaps } from './data-caps.service.ts';

const errors = { 400: errorBody, 401: errorBody, 403: errorBody, 404: errorBody, 503: errorBody };

/** Budget protection (decision 095): "Resume until the end of the month". */
export const budgetRoutes: FastifyPluginAsyncZod<{ dataCaps: DataCaps }> = async (
  app,
  { dataCaps },
) => {
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
};
