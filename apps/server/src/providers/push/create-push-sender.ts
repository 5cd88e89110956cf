import webPush from 'web-push';
import { eq } from 'drizzle-orm';
import type { Config } from '../../config/config.ts';
import type { Database } from '../../db/client.ts';
import { appSettings } from '../../db/schema.ts';
import { pushOff, type PushSender } from './push.ts';
import { createWebPushSender } from './web-push-sender.ts';

const generatedKeysSetting = 'push:vapid-keys';

/**
 * The push sender PUSH's configuration names: off, the configured VAPID keys, or (development)
 * a key pair made once and kept in `app_settings`, so a data folder keeps its subscriptions
 * working across restarts and processes (the first to store it wins).
 */
export async function createPushSender(
  config: Config['push'],
  deps: { db: Database },
): Promise<PushSender> {
  if (config.mode === 'off') return pushOff;
  if (config.mode === 'configured') return createWebPushSender(config);
  const made = webPush.generateVAPIDKeys();
  await deps.db
    .insert(appSettings)
    .values({ key: generatedKeysSetting, value: made })
    .onConflictDoNothing();
  const [row] = await deps.db
    .select({ value: appSettings.value })
    .from(appSettings)
    .where(eq(appSettings.key, generatedKeysSetting));
  const keys = row!.value as { publicKey: string; privateKey: string };
  return createWebPushSender({ ...keys, subject: config.subject });
}
