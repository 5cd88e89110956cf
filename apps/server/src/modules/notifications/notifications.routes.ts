import {
  errorBody,
  notificationSettingsBody,
  notificationSettingsResponse,
  phoneBody,
  phoneCodeBody,
  pushDeviceParams,
  pushSubscriptionBody,
  testNotificationBody,
} from '@farmcam/contract';
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireCustomerScope } from '../auth/auth.plugin.ts';
import type { NotificationSettingsService } from './notification-settings.service.ts';

const errors = {
  400: errorBody,
  401: errorBody,
  403: errorBody,
  404: errorBody,
  422: errorBody,
  429: errorBody,
  503: errorBody,
};
const answers = { 200: notificationSettingsResponse, ...errors };

/**
 * The signed-in person's own notification settings (decision 122): every route acts on the
 * person of the session (the owner, or that member) and nobody else's.
 */
export const notificationsRoutes: FastifyPluginAsyncZod<{
  notificationSettings: NotificationSettingsService;
}> = async (app, { notificationSettings: service }) => {
  const security = [{ bearer: [] }];
  const tags = ['notifications'];

  app.get(
    '/notifications/settings',
    {
      schema: {
        tags,
        operationId: 'getNotificationSettings',
        summary: 'How the signed-in person is told of each kind of alert',
        security,
        response: answers,
      },
    },
    async (request) => {
      const { customerId, access } = requireCustomerScope(request);
      return service.getSettings(customerId, access);
    },
  );

  app.put(
    '/notifications/settings',
    {
      schema: {
        tags,
        operationId: 'saveNotificationSettings',
        summary: 'Choose e-mail, push and SMS per kind of alert, and quiet hours',
        security,
        body: notificationSettingsBody,
        response: answers,
      },
    },
    async (request) => {
      const { customerId, access } = requireCustomerScope(request);
      return service.saveSettings(customerId, access, request.body);
    },
  );

  app.post(
    '/notifications/push-devices',
    {
      schema: {
        tags,
        operationId: 'addPushDevice',
        summary: "This browser's push subscription (one per device; sent again, it is updated)",
        security,
        body: pushSubscriptionBody,
        response: answers,
      },
    },
    async (request) => {
      const { customerId, access } = requireCustomerScope(request);
      return service.addPushDevice(customerId, access, request.body, request.headers['user-agent']);
    },
  );

  app.delete(
    '/notifications/push-devices/:deviceId',
    {
      schema: {
        tags,
        operationId: 'removePushDevice',
        summary: 'Stop push to one of the person’s devices',
        security,
        params: pushDeviceParams,
        response: answers,
      },
    },
    async (request) => {
      const { customerId, access } = requireCustomerScope(request);
      return service.removePushDevice(customerId, access, request.params.deviceId);
    },
  );

  app.post(
    '/notifications/phone',
    {
      schema: {
        tags,
        operationId: 'startPhoneVerification',
        summary: 'Text a six-digit code to a UK mobile number',
        security,
        body: phoneBody,
        response: answers,
      },
    },
    async (request) => {
      const { customerId, access } = requireCustomerScope(request);
      return service.startPhoneVerification(customerId, access, request.body.phone);
    },
  );

  app.post(
    '/notifications/phone/verify',
    {
      schema: {
        tags,
        operationId: 'verifyPhone',
        summary: 'The code from the text: the number then receives SMS alerts',
        security,
        body: phoneCodeBody,
        response: answers,
      },
    },
    async (request) => {
      const { customerId, access } = requireCustomerScope(request);
      return service.confirmPhone(customerId, access, request.body.code);
    },
  );

  app.delete(
    '/notifications/phone',
    {
      schema: {
        tags,
        operationId: 'removePhone',
        summary: 'Forget the mobile number: no more SMS alerts',
        security,
        response: answers,
      },
    },
    async (request) => {
      const { customerId, access } = requireCustomerScope(request);
      return service.removePhone(customerId, access);
    },
  );

  app.post(
    '/notifications/test',
    {
      schema: {
        tags,
        operationId: 'sendTestNotification',
        summary: "A test push to the person's devices, or a test SMS to their phone",
        security,
        body: testNotificationBody,
        response: { 200: z.object({ queued: z.boolean() }), ...errors },
      },
    },
    async (request) => {
      const { customerId, access } = requireCustomerScope(request);
      return service.sendTest(customerId, access, request.body.channel);
    },
  );
};
