import { errorBody, iccidParams, timelapsesResponse } from '@farmcam/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireCameraAccess, requireCustomerScope } from '../auth/auth.plugin.ts';
import type { TimelapseService } from './timelapse.service.ts';

const errors = { 401: errorBody, 403: errorBody, 404: errorBody };

/**
 * A camera's daily timelapses (decision 097). Every role that may see the camera may watch and
 * download them. The answer carries signed, expiring addresses: `<video>` and a download link
 * cannot send the bearer token, so the file is served by the storage (byte ranges for seeking,
 * `Content-Disposition: attachment` for the download), as clips are.
 */
export const timelapseRoutes: FastifyPluginAsyncZod<{ timelapses: TimelapseService }> = async (
  app,
  { timelapses },
) => {
  app.get(
    '/cameras/timelapses/:iccid',
    {
      schema: {
        tags: ['cameras'],
        operationId: 'listCameraTimelapses',
        summary: "A camera's daily timelapses, newest first, with addresses to play and download",
        security: [{ bearer: [] }],
        params: iccidParams,
        response: { 200: timelapsesResponse, ...errors },
      },
    },
    async (request) => {
      const { customerId, access } = requireCustomerScope(request);
      requireCameraAccess(access, request.params.iccid);
      return timelapses.listForCamera(customerId, request.params.iccid);
    },
  );
};
