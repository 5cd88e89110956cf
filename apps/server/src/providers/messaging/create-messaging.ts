import type { Config } from '../../config/config.ts';
import type { Database } from '../../db/client.ts';
import { createLocalMessaging } from './local-messaging.ts';
import { messagingOff, type Messaging } from './messaging.ts';
import { createTwilioMessaging } from './twilio-messaging.ts';

/** The messaging provider SMS names: off, the local store (development), or Twilio. */
export function createMessaging(config: Config['sms'], deps: { db: Database }): Messaging {
  if (config.mode === 'local') return createLocalMessaging(deps.db);
  if (config.mode === 'twilio') return createTwilioMessaging(config);
  return messagingOff;
}
