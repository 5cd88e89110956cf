import {
  customerIdParams,
  customerSearchQuery,
  customerSearchResponse,
  errorBody,
  impersonationResponse,
} from '@farmcam/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requestContext, requireStaff } from '../auth/auth.plugin.ts';
import type { StaffService } from './staff.service.ts';

export const staffRoutes: FastifyPluginAsyncZod<{ staff: StaffService }> = async (
  app,
  { staff },
) => {
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
      return staff.searchCustomers(request.query.q, request.query.limit);
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
      return staff.openPortal(principal, request.params.customerId, requestContext(request));
    },
  );
};
