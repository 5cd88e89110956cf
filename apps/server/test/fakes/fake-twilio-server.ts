/**
 * A fake of Twilio's Messages API for tests (decision 124): `POST
 * /2010-04-01/Accounts/{AccountSid}/Messages.json` with HTTP Basic auth (the account SID and
 * auth token), form fields To, From or MessagingServiceSid, Body and StatusCallback, answering
 * as Twilio does (201 with the message resource; 400 with Twilio's error `code` for a bad or
 * opted-out number; 401 for a wrong token). Each accepted message is then reported to its
 * StatusCallback, `sent` and `delivered` (or `undelivered` with an ErrorCode), and a reply can be
 * posted to the inbound webhook, both signed with X-Twilio-Signature as Twilio documents it
 * (HMAC-SHA1 of the URL and the sorted fields, keyed with the auth token): computed here, not by
 * the SDK that checks it.
 */
import { createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeTwilioMessage {
  sid: string;
  to: string;
  from: string | undefined;
  messagingServiceSid: string | undefined;
  body: string;
  statusCallback: string | undefined;
}

/** Twilio's webhook signature (its "Webhooks security" page): base64 HMAC-SHA1. */
export function twilioSignature(authToken: string, url: string, fields: Record<string, string>) {
  const data = Object.keys(fields)
    .sort()
    .reduce((text, key) => text + key + fields[key], url);
  return createHmac('sha1', authToken).update(data).digest('base64');
}

export async function startFakeTwilio(options: {
  accountSid: string;
  authToken: string;
  /**
   * Where callbacks really go (our listening test server), while they are signed for the
   * address we gave Twilio (PUBLIC_URL…), as behind a proxy.
   */
  deliverTo: () => string;
}) {
  const messages: FakeTwilioMessage[] = [];
  const callbacks: { url: string; status: number; fields: Record<string, string> }[] = [];
  const optedOut = new Set<string>();
  const undeliverable = new Map<string, string>();
  let unavailableCount = 0;

  async function post(signedUrl: string, fields: Record<string, string>) {
    const target = new URL(signedUrl);
    const response = await fetch(`${options.deliverTo()}${target.pathname}${target.search}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-twilio-signature': twilioSignature(options.authToken, signedUrl, fields),
      },
      body: new URLSearchParams(fields).toString(),
    });
    callbacks.push({ url: signedUrl, status: response.status, fields });
    return response.status;
  }

  const error = (response: http.ServerResponse, status: number, code: number, message: string) =>
    response.writeHead(status, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        code,
        message,
        more_info: `https://www.twilio.com/docs/errors/${code}`,
        status,
      }),
    );

  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = `/2010-04-01/Accounts/${options.accountSid}/Messages.json`;
      if (request.method !== 'POST' || request.url !== path) {
        error(response, 404, 20404, 'The requested resource was not found');
        return;
      }
      const expected = `Basic ${Buffer.from(`${options.accountSid}:${options.authToken}`).toString('base64')}`;
      if (request.headers.authorization !== expected) {
        error(response, 401, 20003, 'Authenticate');
        return;
      }
      if (unavailableCount > 0) {
        unavailableCount -= 1;
        error(response, 503, 20503, 'Service unavailable');
        return;
      }
      const fields = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString()));
      if (!fields.To || !/^\+[1-9]\d{6,14}$/.test(fields.To)) {
        error(
          response,
          400,
          21211,
          `The 'To' number ${fields.To ?? ''} is not a valid phone number.`,
        );
        return;
      }
      if (!fields.From && !fields.MessagingServiceSid) {
        error(response, 400, 21603, "A 'From' or 'MessagingServiceSid' parameter is required.");
        return;
      }
      if (!fields.Body) {
        error(response, 400, 21602, 'Message body is required.');
        return;
      }
      if (optedOut.has(fields.To)) {
        error(response, 400, 21610, 'Attempt to send to unsubscribed recipient');
        return;
      }
      const message: FakeTwilioMessage = {
        sid: `SM${randomBytes(16).toString('hex')}`,
        to: fields.To,
        from: fields.From,
        messagingServiceSid: fields.MessagingServiceSid,
        body: fields.Body,
        statusCallback: fields.StatusCallback,
      };
      messages.push(message);
      response.writeHead(201, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          sid: message.sid,
          account_sid: options.accountSid,
          to: message.to,
          from: message.from ?? null,
          messaging_service_sid: message.messagingServiceSid ?? null,
          body: message.body,
          status: 'queued',
          num_segments: '1',
          direction: 'outbound-api',
          api_version: '2010-04-01',
          date_created: new Date().toUTCString(),
          uri: `${path.replace('.json', '')}/${message.sid}.json`,
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    apiUrl,
    messages,
    callbacks,
    /** The number has replied STOP at Twilio: sends to it are refused with 21610. */
    optOut: (number: string) => optedOut.add(number),
    /** Messages to the number are accepted but not delivered (ErrorCode, e.g. 30003). */
    failDelivery: (number: string, errorCode: string) => undeliverable.set(number, errorCode),
    /** The next `count` sends answer 503. */
    beUnavailable: (count: number) => {
      unavailableCount = count;
    },
    /** Reports what happened to every accepted message not yet reported: sent, then its fate. */
    async reportStatuses(): Promise<void> {
      for (const message of messages.splice(0)) {
        if (!message.statusCallback) continue;
        const base = {
          MessageSid: message.sid,
          AccountSid: options.accountSid,
          To: message.to,
          From: message.from ?? '+447700900000',
        };
        await post(message.statusCallback, { ...base, MessageStatus: 'sent', SmsStatus: 'sent' });
        const failure = undeliverable.get(message.to);
        await post(
          message.statusCallback,
          failure
            ? {
                ...base,
                MessageStatus: 'undelivered',
                SmsStatus: 'undelivered',
                ErrorCode: failure,
              }
            : { ...base, MessageStatus: 'delivered', SmsStatus: 'delivered' },
        );
        messages.push({ ...message, statusCallback: undefined });
      }
    },
    /** A text from a phone to our number, as Twilio posts it to the incoming-message webhook. */
    reply: (inboundUrl: string, from: string, body: string) =>
      post(inboundUrl, {
        MessageSid: `SM${randomBytes(16).toString('hex')}`,
        AccountSid: options.accountSid,
        From: from,
        To: '+447700900000',
        Body: body,
        NumMedia: '0',
      }),
    /** A forged callback: signed with another token. */
    postForged: async (signedUrl: string, fields: Record<string, string>) => {
      const target = new URL(signedUrl);
      const response = await fetch(`${options.deliverTo()}${target.pathname}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'x-twilio-signature': twilioSignature('not-the-token', signedUrl, fields),
        },
        body: new URLSearchParams(fields).toString(),
      });
      return response.status;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
