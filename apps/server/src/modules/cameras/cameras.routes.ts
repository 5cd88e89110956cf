import {
  errorBody,
  iccidParams,
  plansResponse,
  routerInfoResponse,
  simInfoResponse,
  updateNicknameBody,
  updateNicknameResponse,
} from '@farmcam/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  requestContext,
  requireAbility,
  requireCameraAccess,
  requireCustomerScope,
} from '../auth/auth.plugin.ts';
import type { CamerasService } from './cameras.service.ts';
import { checkedJsonSerializerCompiler } from '../../lib/checked-json.ts';

const errors = { 400: errorBody, 401: errorBody, 403: errorBody, 404: errorBody };

export const camerasRoutes: FastifyPluginAsyncZod<{ cameras: CamerasService }> = async (
  app,
  { cameras },
) => {
  app.get(
    '/cameras/plansV2',
    {
      schema: {
        tags: ['cameras'],
        operationId: 'listCameraPlans',
        summary: "The customer's cameras with plan, state and this month's data use",
        security: [{ bearer: [] }],
        response: { 200: plansResponse, 401: errorBody, 403: errorBody },
      },
      // The same contract check, writing the service's value rather than zod's copy (decision 089).
      serializerCompiler: checkedJsonSerializerCompiler,
    },
    async (request) => {
      // Every role reads the list: only the person's cameras, with what their role may do.
      const { customerId, access } = requireCustomerScope(request);
      return cameras.listPlans(customerId, access);
    },
  );

  app.get(
    '/cameras/sim-info/:iccid',
    {
      schema: {
        tags: ['cameras'],
        operationId: 'getSimInfo',
        summary: "A camera's SIM: activation, state, barring, termination",
        security: [{ bearer: [] }],
        params: iccidParams,
        response: { 200: simInfoResponse, ...errors },
      },
    },
    async (request) => {
      const { customerId, access } = requireCustomerScope(request);
      requireCameraAccess(access, request.params.iccid);
      return cameras.getSimInfo(customerId, request.params.iccid);
    },
  );

  app.get(
    '/cameras/router-info/:iccid',
    {
      schema: {
        tags: ['cameras'],
        operationId: 'getRouterInfo',
        summary: "The camera router's last report (network, signal); null unless the SIM is active",
        security: [{ bearer: [] }],
        params: iccidParams,
        response: { 200: routerInfoResponse, ...errors },
      },
    },
    async (request) => {
      const { customerId, access } = requireCustomerScope(request);
      requireCameraAccess(access, request.params.iccid);
      return cameras.getRouterInfo(customerId, request.params.iccid);
    },
  );

  app.post(
    '/cameras/update-nickname',
    {
      schema: {
        tags: ['cameras'],
        operationId: 'updateCameraNickname',
        summary: 'Rename a camera (trimmed, 1 to 40 characters)',
        security: [{ bearer: [] }],
        body: updateNicknameBody,
        response: { 200: updateNicknameResponse, ...errors },
      },
    },
    async (request) => {
      const { customerId, principal, access } = requireAbility(request, 'manageCameras');
      requireCameraAccess(access, request.body.simIccid);
      return cameras.updateNickname(principal, customerId, {
        ...request.body,
        ...requestContext(request),
      });
    },
  );
};
