/**
 * Push port (decision 123): Web Push to a browser or installed app, signed with our VAPID key
 * and encrypted for the device (RFC 8291) by the `web-push` library. Off in production until
 * VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY are set; outside production a key pair is made once per
 * data folder.
 */

/** One device's subscription, as the browser's PushManager gave it. */
export interface PushTarget {
  endpoint: string;
  p256dh: string;
  auth: string;
}

/** What the service worker shows: the title, the text and the page a tap opens. */
export interface PushPayload {
  title: string;
  body: string;
  /** A path of the portal (/camera/…). */
  path: string;
  /** Notifications with one tag replace each other (one per camera and kind). */
  tag: string;
}

export type PushOutcome =
  | { kind: 'sent' }
  /** 404 or 410: the subscription has expired or was withdrawn; forget the device. */
  | { kind: 'gone' }
  /** Refused for good (another 4xx): the message will never be taken. */
  | { kind: 'refused'; reason: string };

export interface PushSender {
  readonly isAvailable: boolean;
  /** The VAPID public key browsers subscribe with (base64url), null when push is off. */
  readonly publicKey: string | null;
  /** Throws when the push service could not be reached or answered 429/5xx (try again later). */
  send(
    target: PushTarget,
    payload: PushPayload,
    options: { ttlSeconds: number; isUrgent: boolean },
  ): Promise<PushOutcome>;
}

export const pushOff: PushSender = {
  isAvailable: false,
  publicKey: null,
  async send() {
    throw new Error('Push is not configured on this server');
  },
};
