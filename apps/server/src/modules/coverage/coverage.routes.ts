import {
  coverageSourceResponse,
  errorBody,
  ofcomSignalParams,
  signalAvailabilityResponse,
} from '@farmcam/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requestContext } from '../auth/auth.plugin.ts';
import type { CoverageService } from './coverage.service.ts';

/** Public: anyone may check coverage before buying, so no session is needed. */
export const coverageRoutes: FastifyPluginAsyncZod<{ coverage: CoverageService }> = async (
  app,
  { coverage },
) => {
  app.get(
    '/ofcom-signal/:postCode',
    {
      schema: {
        tags: ['coverage'],
        operationId: 'getPostcodeSignal',
        security: [],
        summary: 'Predicted mobile signal at every address of a UK postcode (public)',
        description:
          'The postcode is upper-cased and stripped of everything but letters and digits, then ' +
          'checked against the UK format. Levels are 0 (none), 3 (limited) or 4 (strong), null ' +
          'without a prediction. Rate limited per client address.',
        params: ofcomSignalParams,
        response: {
          200: signalAvailabilityResponse,
          400: errorBody,
          404: errorBody,
          429: errorBody,
          503: errorBody,
        },
      },
    },
    async (request) => coverage.checkSignal(request.params.postCode, requestContext(request)),
  );

  app.get(
    '/coverage/source',
    {
      schema: {
        tags: ['coverage'],
        operationId: 'getCoverageSource',
        security: [],
        summary: 'Where coverage data comes from, and the demo postcodes when it is demo data',
        response: { 200: coverageSourceResponse },
      },
    },
    async () => coverage.describeSource(),
  );
};
