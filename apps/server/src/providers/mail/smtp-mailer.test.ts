import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderEmail } from './mail.ts';
import { createSmtpMailer } from './smtp-mailer.ts';

interface Received {
  from: string;
  to: string[];
  raw: string;
}

const received: Received[] = [];
let server: SMTPServer;
let port: number;

beforeAll(async () => {
  server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, session, callback) {
      let raw = '';
      stream.on('data', (chunk: Buffer) => (raw += chunk.toString()));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((recipient) => recipient.address),
          raw,
        });
        callback();
      });
    },
    onRcptTo(address, _session, callback) {
      if (address.address.endsWith('@refused.example')) {
        callback(new Error('Mailbox unavailable'));
        return;
      }
      callback();
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('SMTP mailer', () => {
  it('delivers a text and HTML message to a real SMTP server', async () => {
    const mailer = createSmtpMailer({
      url: `smtp://127.0.0.1:${port}`,
      from: 'Farmcam <no-reply@farmcam.example>',
    });
    await mailer.send(
      renderEmail({
        to: 'farmer@example.com',
        subject: 'Your Farmcam login link',
        heading: 'Sign in',
        paragraphs: ['Hello <friend>'],
        action: { label: 'Sign in', url: 'http://portal.test/login/abc' },
      }),
    );
    await mailer.close();
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({
      from: 'no-reply@farmcam.example',
      to: ['farmer@example.com'],
    });
    expect(received[0]?.raw).toContain('Subject: Your Farmcam login link');
    expect(received[0]?.raw).toContain('http://portal.test/login/abc');
    expect(received[0]?.raw).toContain('Content-Type: text/html');
    expect(received[0]?.raw).toContain('Content-Type: text/plain');
  });

  it('rejects when the server refuses the recipient', async () => {
    const mailer = createSmtpMailer({ url: `smtp://127.0.0.1:${port}`, from: 'x@farmcam.example' });
    await expect(
      mailer.send({ to: 'nobody@refused.example', subject: 's', text: 't', html: '<p>t</p>' }),
    ).rejects.toThrow(/Mailbox unavailable/);
    await mailer.close();
  });
});
