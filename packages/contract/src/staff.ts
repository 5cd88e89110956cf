import { z } from 'zod';

export const customerSearchQuery = z.object({
  q: z.string().trim().max(100).optional().default(''),
  limit: z.coerce.number().int().min(1).max(100).optional().default(50),
});

export const cameraStateCounts = z.object({
  active: z.number().int(),
  paused: z.number().int(),
  attention: z.number().int().describe('Overdue, past due or without an active subscription'),
  terminated: z.number().int(),
});

export const staffCustomer = z.object({
  id: z.string(),
  email: z.string(),
  createdAt: z.string(),
  cameraCount: z.number().int(),
  states: cameraStateCounts,
});
export type StaffCustomer = z.infer<typeof staffCustomer>;

export const customerSearchResponse = z.object({ customers: z.array(staffCustomer) });
export type CustomerSearchResponse = z.infer<typeof customerSearchResponse>;

export const customerIdParams = z.object({ customerId: z.uuid('Unknown customer') });

export const impersonationResponse = z.object({
  token: z.string(),
  expiresAt: z.string(),
});
export type ImpersonationResponse = z.infer<typeof impersonationResponse>;
