import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../test/helpers/server-processes.ts';
import { startSmtpSink, type SmtpSink } from '../../../test/helpers/smtp-sink.ts';
import { renderEmail } from './mail.ts';
import { classifyDeliveryFailure, createSmtpTransport } from './smtp-transport.ts';

let sink: SmtpSink;

beforeAll(async () => {
  sink = await startSmtpSink();
});
afterAll(() => sink.stop());

const transportTo = (url: string) =>
  createSmtpTransport({ url, from: 'Farmcam <no-reply@farmcam.example>', maxConnections: 2 });

const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('delivered');
    },
    (error: unknown) => error,
  );

describe('SMTP transport', () => {
  it('delivers a text and HTML message to a real SMTP server under its Message-ID', async () => {
    const transport = transportTo(sink.url);
    await transport.deliver(
      renderEmail({
        kind: 'login',
        to: 'farmer@example.com',
        subject: 'Your Farmcam login link',
        heading: 'Sign in',
        paragraphs: ['Hello <friend>'],
        action: { label: 'Sign in', url: 'http://portal.test/login/abc' },
      }),
      { messageId: '4f6c1a2e-0000-4000-8000-000000000001' },
    );
    await transport.close();
    expect(sink.received).toHaveLength(1);
    expect(sink.received[0]).toMatchObject({
      from: 'no-reply@farmcam.example',
      to: ['farmer@example.com'],
      subject: 'Your Farmcam login link',
      messageId: '<4f6c1a2e-0000-4000-8000-000000000001@farmcam.example>',
    });
    expect(sink.received[0]?.raw).toContain('http://portal.test/login/abc');
    expect(sink.received[0]?.raw).toContain('Content-Type: text/html');
    expect(sink.received[0]?.raw).toContain('Content-Type: text/plain');
    // What it is stays ours: no header carries it.
    expect(sink.received[0]?.raw).not.toMatch(/^kind:/im);
  });

  it('tells a refusal for now, a refusal for good and a server it cannot reach apart', async () => {
    const transport = transportTo(sink.url);
    const message = (to: string) => ({ to, subject: 's', text: 't', html: '<p>t</p>' });
    sink.refuse('busy@example.com', 450);
    sink.refuse('nobody@example.com', 550);
    const busy = await failureOf(
      transport.deliver(message('busy@example.com'), { messageId: 'a' }),
    );
    const nobody = await failureOf(
      transport.deliver(message('nobody@example.com'), { messageId: 'b' }),
    );
    await transport.close();
    expect(classifyDeliveryFailure(busy)).toBe('temporary');
    expect(classifyDeliveryFailure(nobody)).toBe('permanent');

    const nowhere = transportTo(`smtp://127.0.0.1:${await freePort()}`);
    const refused = await failureOf(nowhere.deliver(message('x@example.com'), { messageId: 'c' }));
    await nowhere.close();
    expect(classifyDeliveryFailure(refused)).toBe('unreachable');
    expect(classifyDeliveryFailure({ responseCode: 421, code: 'EENVELOPE' })).toBe('unreachable');
    expect(classifyDeliveryFailure({ responseCode: 535, code: 'EAUTH' })).toBe('unreachable');
  });
});
