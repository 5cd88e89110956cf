import {
  customerIdParams,
  customerSearchQuery,
  customerSearchResponse,
  errorBody,
  impersonationResponse,
} from '@farmcam/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Database } from '../../db/client.ts';
import { notFound } from '../../errors.ts';
import { requestContext, requireStaff } from '../auth/auth.plugin.ts';
import type { AuthService } from '../auth/auth.service.ts';
import { businessDay } from '../../lib/business-calendar.ts';
import type { Clock } from '../../lib/clock.ts';
import { countCameraStates } from './camera-state-counts.ts';
import { staffRepository } from './staff.repository.ts';

export const staffRoutes: FastifyPluginAsyncZod<{
  auth: AuthService;
  db: Database;
  clock: Clock;
}> = async (app, { auth, db, clock }) => {
  app.get(
    '/staff/customers',
    {
      schema: {
        tags: ['staff'],
        operationId: 'searchCustomers',
        summary: 'Search customers by e-mail, with their cameras counted by state',
        security: [{ bearer: [] }],
        querystring: customerSearchQuery,
        response: { 200: customerSearchResponse, 401: errorBody, 403: errorBody },
      },
    },
    async (request) => {
      requireStaff(request);
      const rows = await staffRepository.searchCustomers(db, request.query.q, request.query.limit);
      const today = businessDay(clock.now());
      return {
        customers: rows.map((row) => ({
          id: row.id,
          email: row.email,
          createdAt: new Date(row.created_at).toISOString(),
          ...countCameraStates(row.camera_groups, today),
        })),
      };
    },
  );

  app.post(
    '/staff/customers/:customerId/impersonate',
    {
      schema: {
        tags: ['staff'],
        operationId: 'impersonateCustomer',
        summary: "Open a customer's portal: an audited session scoped to that customer",
        security: [{ bearer: [] }],
        params: customerIdParams,
        response: { 200: impersonationResponse, 401: errorBody, 403: errorBody, 404: errorBody },
      },
    },
    async (request) => {
      const principal = requireStaff(request);
      const { customerId } = request.params;
      if (!(await staffRepository.customerExists(db, customerId))) {
        throw notFound('Unknown customer');
      }
      return auth.startImpersonation(principal, customerId, requestContext(request));
    },
  );
};
