/**
 * What the billing routes share (docs/requirements.md#api): the error answers, the
 * `Idempotency-Key` header, and the caller, once their role may do this (403); the services check
 * that the billing account is theirs and belongs to cameras they may reach (404).
 */
import { errorBody } from '@farmcam/contract';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { requestContext, requireAbility, requireCustomerScope } from '../auth/auth.plugin.ts';
import type { Ability } from '../auth/access.ts';
import type { Actor, BillingCaller } from './billing-service-context.ts';

export const security = [{ bearer: [] }];
export const errors = { 400: errorBody, 401: errorBody, 403: errorBody, 404: errorBody };
export const writeErrors = { ...errors, 409: errorBody, 422: errorBody, 503: errorBody };
export const idempotencyHeaders = z.object({
  'idempotency-key': z
    .string()
    .optional()
    .describe('Repeating a write with the same key applies it once'),
});

/**
 * The caller, after checking their role may do this (403; `read` is any role): the billing
 * services check that the account is theirs and belongs to cameras they may reach (404),
 * decision 091.
 */
export function callerOf(request: FastifyRequest, ability: Ability | 'read') {
  const { customerId, principal, access } =
    ability === 'read' ? requireCustomerScope(request) : requireAbility(request, ability);
  const caller: BillingCaller = { customerId, access };
  const actor: Actor = { principal, ...requestContext(request) };
  return { caller, principal, actor };
}

export const idempotencyKeyOf = (request: FastifyRequest) => {
  const value = request.headers['idempotency-key'];
  return typeof value === 'string' && value !== '' ? value : undefined;
};

/** The account owner (and staff inside their portal) for the farm's Billing page (decision 127). */
export function farmOwner(request: FastifyRequest) {
  const { customerId, principal } = requireAbility(request, 'manageBilling');
  const actor: Actor = { principal, ...requestContext(request) };
  return { customerId, actor };
}
