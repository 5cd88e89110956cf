/**
 * A real SMTP server for tests (the `smtp-server` package): it records what it receives, can be
 * stopped and started again on the same port (a mail server outage), and can refuse chosen
 * recipients with a given reply (a 450 "try later", a 550 "no such mailbox").
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  to: string[];
  from: string;
  /** The Message-ID header, as sent. */
  messageId: string | undefined;
  subject: string | undefined;
  raw: string;
  /** Date.now() when the message was complete. */
  receivedAt: number;
}

export interface SmtpSink {
  readonly port: number;
  readonly url: string;
  readonly received: ReceivedMail[];
  /** Recipients refused with a reply code (450: for now, 550: for good) until cleared. */
  refuse(address: string, code: 450 | 550 | null): void;
  /** Stops listening and drops open connections: the mail server is down. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
}

function header(raw: string, name: string): string | undefined {
  const match = new RegExp(`^${name}:\\s*(.*(?:\\r?\\n[ \\t].*)*)`, 'im').exec(raw);
  return match?.[1]?.replace(/\r?\n[ \t]/g, ' ').trim();
}

export async function startSmtpSink(
  options: {
    port?: number;
    /** Told of each message as it is complete (the bench times arrivals). */
    onMessage?: (mail: ReceivedMail) => void;
  } = {},
): Promise<SmtpSink> {
  const received: ReceivedMail[] = [];
  const refusals = new Map<string, 450 | 550>();
  let server: SMTPServer | undefined;
  let port = options.port ?? 0;

  const listen = async () => {
    if (server) return;
    const next = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onRcptTo(address, _session, callback) {
        const code = refusals.get(address.address);
        if (code) {
          const error = new Error(code === 450 ? 'Mailbox busy, try later' : 'No such mailbox');
          (error as Error & { responseCode: number }).responseCode = code;
          callback(error);
          return;
        }
        callback();
      },
      onData(stream, session, callback) {
        let raw = '';
        stream.on('data', (chunk: Buffer) => (raw += chunk.toString()));
        stream.on('end', () => {
          const mail: ReceivedMail = {
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((recipient) => recipient.address),
            messageId: header(raw, 'Message-ID'),
            subject: header(raw, 'Subject'),
            raw,
            receivedAt: Date.now(),
          };
          received.push(mail);
          options.onMessage?.(mail);
          callback();
        });
      },
    });
    await new Promise<void>((resolve, reject) => {
      next.server.once('error', reject);
      next.listen(port, '127.0.0.1', () => resolve());
    });
    port = (next.server.address() as AddressInfo).port;
    server = next;
  };
  await listen();

  return {
    get port() {
      return port;
    },
    get url() {
      return `smtp://127.0.0.1:${port}`;
    },
    received,
    refuse(address, code) {
      if (code) refusals.set(address, code);
      else refusals.delete(address);
    },
    async stop() {
      const current = server;
      server = undefined;
      if (!current) return;
      // close() waits for open (pooled) connections: end them, as a crashed server would.
      const closed = new Promise<void>((resolve) => current.close(() => resolve()));
      for (const connection of (current as unknown as { connections: Set<{ close(): void }> })
        .connections) {
        connection.close();
      }
      await closed;
    },
    start: listen,
  };
}
