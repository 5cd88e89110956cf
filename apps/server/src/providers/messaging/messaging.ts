/**
 * Messaging port (decision 124): text messages to a phone. Implementations: `local` (default
 * outside production; each message kept in `local_sms_messages` and shown at /dev/sms) and
 * `twilio` (Twilio's Messages API through its official SDK, with status callbacks and STOP
 * replies arriving at our webhooks). Off in production until Twilio is configured.
 */

export interface OutgoingSms {
  /** E.164. */
  to: string;
  body: string;
  /** Where the provider reports the message's fate (Twilio's StatusCallback). */
  statusCallbackUrl?: string;
}

export interface SentSms {
  /** The provider's message id (Twilio's SID). */
  id: string;
  /** `delivered` when the provider already knows (the local store). */
  status: 'queued' | 'sent' | 'delivered';
}

/** The provider refused this message for good (a bad number, the person replied STOP). */
export class SmsRefusedError extends Error {
  constructor(
    /** A sentence for the person's Notifications page. */
    public readonly reason: string,
    /** The recipient has opted out at the provider (replied STOP). */
    public readonly isOptedOut = false,
  ) {
    super(reason);
    this.name = 'SmsRefusedError';
  }
}

export interface Messaging {
  readonly kind: 'off' | 'local' | 'twilio';
  readonly isAvailable: boolean;
  /**
   * Hands one message to the provider. Throws SmsRefusedError when it will never be taken; any
   * other error means try again later (the provider could not be reached, or answered 429/5xx).
   */
  send(sms: OutgoingSms): Promise<SentSms>;
}

export const messagingOff: Messaging = {
  kind: 'off',
  isAvailable: false,
  async send() {
    throw new Error('SMS is not configured on this server');
  },
};
