import twilio from 'twilio';
import type RequestClientNamespace from 'twilio/lib/base/RequestClient.js';
import { trackProviderCall } from '../../lib/provider-calls.ts';
import { SmsRefusedError, type Messaging, type SentSms } from './messaging.ts';

/**
 * Twilio's error codes that mean "this message will never be taken": its words turned into
 * sentences for the farmer's Notifications page.
 */
const refusals: Record<number, { reason: string; isOptedOut?: boolean }> = {
  21211: { reason: 'The phone number was not accepted as a valid number.' },
  21408: { reason: 'Text messages to this country are not enabled.' },
  21610: { reason: 'This phone replied STOP, so texts are not sent to it.', isOptedOut: true },
  21612: { reason: 'Texts cannot be sent to this number.' },
  21614: { reason: 'This number cannot receive text messages (not a mobile).' },
};

/** A Twilio REST client that talks to another address (a fake of Twilio's API in tests). */
class RedirectingRequestClient extends twilio.RequestClient {
  constructor(private readonly apiUrl: string) {
    super({ timeout: 10_000 });
  }
  override request<TData>(opts: RequestClientNamespace.RequestOptions<TData>) {
    const original = new URL(opts.uri);
    const target = new URL(`${original.pathname}${original.search}`, this.apiUrl);
    return super.request<TData>({ ...opts, uri: target.href });
  }
}

/** Text messages through Twilio's Messages API (the official SDK). */
export function createTwilioMessaging(config: {
  accountSid: string;
  authToken: string;
  from: string | undefined;
  messagingServiceSid: string | undefined;
  apiUrl: string | undefined;
}): Messaging {
  const client = twilio(config.accountSid, config.authToken, {
    ...(config.apiUrl ? { httpClient: new RedirectingRequestClient(config.apiUrl) } : {}),
    timeout: 10_000,
  });
  return {
    kind: 'twilio',
    isAvailable: true,
    send: (sms) =>
      trackProviderCall('sms', 'send', async () => {
        try {
          const message = await client.messages.create({
            to: sms.to,
            body: sms.body,
            ...(config.messagingServiceSid
              ? { messagingServiceSid: config.messagingServiceSid }
              : { from: config.from! }),
            ...(sms.statusCallbackUrl ? { statusCallback: sms.statusCallbackUrl } : {}),
          });
          const status: SentSms['status'] = message.status === 'sent' ? 'sent' : 'queued';
          return { id: message.sid, status };
        } catch (error) {
          if (
            error instanceof twilio.RestException &&
            error.status >= 400 &&
            error.status < 500 &&
            error.status !== 429
          ) {
            const known = error.code === undefined ? undefined : refusals[error.code];
            // Refused for good: the message's answer, not Twilio failing.
            return new SmsRefusedError(
              known?.reason ??
                `The text message was refused (Twilio error ${error.code ?? error.status}).`,
              known?.isOptedOut ?? false,
            );
          }
          throw error;
        }
      }).then((outcome) => {
        if (outcome instanceof SmsRefusedError) throw outcome;
        return outcome;
      }),
  };
}

/** Twilio's signature on a webhook it sent us (X-Twilio-Signature), checked by the SDK. */
export function isTwilioSignatureValid(
  authToken: string,
  signature: string,
  url: string,
  params: Record<string, string>,
): boolean {
  return twilio.validateRequest(authToken, signature, url, params);
}
