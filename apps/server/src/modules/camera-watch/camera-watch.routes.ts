import {
  cameraAlertSettings,
  cameraAlertSettingsResponse,
  errorBody,
  iccidParams,
  myCameraAlertsBody,
  myCameraAlertsResponse,
} from '@farmcam/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  requestContext,
  requireAbility,
  requireCameraAccess,
  requireCustomerScope,
} from '../auth/auth.plugin.ts';
import type { AlertSettingsService } from './alert-settings.service.ts';

const errors = { 400: errorBody, 401: errorBody, 403: errorBody, 404: errorBody };

/** A camera's alert settings and each person's own choice of camera alert e-mails (decision 094). */
export const cameraWatchRoutes: FastifyPluginAsyncZod<{
  alertSettings: AlertSettingsService;
}> = async (app, { alertSettings }) => {
  app.get(
    '/cameras/alert-settings/:iccid',
    {
      schema: {
        tags: ['cameras'],
        operationId: 'getCameraAlertSettings',
        summary: "A camera's alerts: silence hours, data share, pause at the allowance, no clip",
        security: [{ bearer: [] }],
        params: iccidParams,
        response: { 200: cameraAlertSettingsResponse, ...errors },
      },
    },
    async (request) => {
      const { customerId, access } = requireCustomerScope(request);
      requireCameraAccess(access, request.params.iccid);
      return alertSettings.getSettings(customerId, access, request.params.iccid);
    },
  );

  app.put(
    '/cameras/alert-settings/:iccid',
    {
      schema: {
        tags: ['cameras'],
        operationId: 'updateCameraAlertSettings',
        summary: "Change a camera's alerts (owner and managers)",
        security: [{ bearer: [] }],
        params: iccidParams,
        body: cameraAlertSettings,
        response: { 200: cameraAlertSettingsResponse, ...errors },
      },
    },
    async (request) => {
      const { customerId, principal, access } = requireAbility(request, 'manageCameras');
      requireCameraAccess(access, request.params.iccid);
      return alertSettings.saveSettings(
        principal,
        customerId,
        access,
        request.params.iccid,
        request.body,
        requestContext(request),
      );
    },
  );

  app.get(
    '/team/me/camera-alerts',
    {
      schema: {
        tags: ['team'],
        operationId: 'getMyCameraAlerts',
        summary: 'Whether the signed-in person receives camera alert e-mails',
        security: [{ bearer: [] }],
        response: { 200: myCameraAlertsResponse, 401: errorBody, 403: errorBody, 404: errorBody },
      },
    },
    async (request) => {
      const { customerId, access } = requireCustomerScope(request);
      return alertSettings.getMyCameraAlerts(customerId, access);
    },
  );

  app.put(
    '/team/me/camera-alerts',
    {
      schema: {
        tags: ['team'],
        operationId: 'setMyCameraAlerts',
        summary:
          'Turn camera alert e-mails on or off for oneself (members; the owner always has them)',
        security: [{ bearer: [] }],
        body: myCameraAlertsBody,
        response: { 200: myCameraAlertsResponse, ...errors },
      },
    },
    async (request) => {
      const { customerId, principal, access } = requireCustomerScope(request);
      return alertSettings.setMyCameraAlerts(
        principal,
        customerId,
        access,
        request.body.cameraAlerts,
        requestContext(request),
      );
    },
  );
};
