/**
 * What the customer's livestreaming routes share (docs/requirements.md#api): the error answers,
 * the session's customer scope, and the check before a change to one camera's livestream.
 */
import { errorBody } from '@farmcam/contract';
import type { FastifyRequest } from 'fastify';
import { requireAbility, requireCameraAccess, requireCustomerScope } from '../auth/auth.plugin.ts';
import type { CustomerScope } from './livestream-access.ts';

export const common = { tags: ['livestreaming'], security: [{ bearer: [] }] };

export const errors = {
  400: errorBody,
  401: errorBody,
  403: errorBody,
  404: errorBody,
  409: errorBody,
  422: errorBody,
  429: errorBody,
  503: errorBody,
};

export function scopeOf(request: FastifyRequest): CustomerScope {
  return {
    ...requireCustomerScope(request),
    ip: request.ip,
    userAgent: request.headers['user-agent'],
  };
}

/**
 * A change to one camera's livestream (set up, configure, record, share, switch on or off):
 * the role must manage cameras (403) and the camera be one of the person's (404, before any
 * work), decision 091.
 */
export function changeScopeOf(request: FastifyRequest, iccid: string): CustomerScope {
  const { access } = requireAbility(request, 'manageCameras');
  requireCameraAccess(access, iccid);
  return scopeOf(request);
}
