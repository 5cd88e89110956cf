import type {
  NotificationSettingsBody,
  NotificationSettingsResponse,
  PushSubscriptionBody,
} from '@farmcam/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client.ts';

const settingsKey = ['notifications', 'settings'] as const;

/** GET /api/notifications/settings: the signed-in person's own choices, devices and phone. */
export function useNotificationSettings() {
  return useQuery({
    queryKey: settingsKey,
    queryFn: ({ signal }) =>
      apiRequest<NotificationSettingsResponse>('/api/notifications/settings', { signal }),
  });
}

/** Every change answers the whole settings, which replace what the page shows. */
function useSettingsMutation<Variables>(
  request: (variables: Variables) => Promise<NotificationSettingsResponse>,
) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: request,
    onSuccess: (response) => queryClient.setQueryData(settingsKey, response),
  });
}

/** PUT /api/notifications/settings. */
export const useSaveNotificationSettings = () =>
  useSettingsMutation((body: NotificationSettingsBody) =>
    apiRequest<NotificationSettingsResponse>('/api/notifications/settings', {
      method: 'PUT',
      body,
    }),
  );

/** POST /api/notifications/push-devices: this browser's subscription. */
export const useAddPushDevice = () =>
  useSettingsMutation((body: PushSubscriptionBody) =>
    apiRequest<NotificationSettingsResponse>('/api/notifications/push-devices', {
      method: 'POST',
      body,
    }),
  );

/** DELETE /api/notifications/push-devices/{id}. */
export const useRemovePushDevice = () =>
  useSettingsMutation((deviceId: string) =>
    apiRequest<NotificationSettingsResponse>(
      `/api/notifications/push-devices/${encodeURIComponent(deviceId)}`,
      { method: 'DELETE' },
    ),
  );

/** POST /api/notifications/phone: texts a code to the number. */
export const useStartPhoneVerification = () =>
  useSettingsMutation((phone: string) =>
    apiRequest<NotificationSettingsResponse>('/api/notifications/phone', {
      method: 'POST',
      body: { phone },
    }),
  );

/** POST /api/notifications/phone/verify. */
export const useVerifyPhone = () =>
  useSettingsMutation((code: string) =>
    apiRequest<NotificationSettingsResponse>('/api/notifications/phone/verify', {
      method: 'POST',
      body: { code },
    }),
  );

/** DELETE /api/notifications/phone. */
export const useRemovePhone = () =>
  useSettingsMutation(() =>
    apiRequest<NotificationSettingsResponse>('/api/notifications/phone', { method: 'DELETE' }),
  );

/** POST /api/notifications/test: a test push or text, now. */
export function useSendTestNotification() {
  return useMutation({
    mutationFn: (channel: 'push' | 'sms') =>
      apiRequest<{ queued: boolean }>('/api/notifications/test', {
        method: 'POST',
        body: { channel },
      }),
  });
}
