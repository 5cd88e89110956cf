import { activityQuery, activityResponse, errorBody } from '@farmcam/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireAbility } from '../auth/auth.plugin.ts';
import type { ActivityService } from './activity.service.ts';

/** The account's activity log, for whoever may read it (the owner; docs/decisions/092). */
export const activityRoutes: FastifyPluginAsyncZod<{ activity: ActivityService }> = async (
  app,
  { activity },
) => {
  app.get(
    '/activity',
    {
      schema: {
        tags: ['activity'],
        operationId: 'listActivity',
        summary:
          "The account's activity log, newest first: who did what and from where, a page at a time",
        security: [{ bearer: [] }],
        querystring: activityQuery,
        response: { 200: activityResponse, 400: errorBody, 401: errorBody, 403: errorBody },
      },
    },
    async (request) => {
      const { customerId } = requireAbility(request, 'viewActivity');
      return activity.list(customerId, request.query);
    },
  );
};
