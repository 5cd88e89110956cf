/**
 * The staff area (docs/decisions/003): finding a customer by e-mail with their cameras counted by
 * state, and opening a customer's portal, which needs the customer to exist (404 otherwise).
 */
import type { CustomerSearchResponse, ImpersonationResponse } from '@farmcam/contract';
import type { Database } from '../../db/client.ts';
import { notFound } from '../../errors.ts';
import { businessDay } from '../../lib/business-calendar.ts';
import type { Clock } from '../../lib/clock.ts';
import type { ImpersonationService } from '../auth/impersonation.service.ts';
import type { Principal, RequestContext } from '../auth/principal.ts';
import { countCameraStates } from './camera-state-counts.ts';
import { staffRepository } from './staff.repository.ts';

export function createStaffService(deps: {
  db: Database;
  clock: Clock;
  impersonation: Pick<ImpersonationService, 'startImpersonation'>;
}) {
  const { db, clock, impersonation } = deps;
  return {
    async searchCustomers(query: string, limit: number): Promise<CustomerSearchResponse> {
      const rows = await staffRepository.searchCustomers(db, query, limit);
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

    async openPortal(
      principal: Principal,
      customerId: string,
      context: RequestContext,
    ): Promise<ImpersonationResponse> {
      if (!(await staffRepository.customerExists(db, customerId))) {
        throw notFound('Unknown customer');
      }
      return impersonation.startImpersonation(principal, customerId, context);
    },
  };
}

export type StaffService = ReturnType<typeof createStaffService>;
