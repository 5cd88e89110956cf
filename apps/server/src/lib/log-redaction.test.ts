import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { createTestContext, type TestContext } from '../../test/helpers/test-app.ts';
import { openTestDatabase } from '../../test/helpers/test-database.ts';
import { redactText, redactUrl, redactUrlCredentials, serializeError } from './log-redaction.ts';

describe('redactUrl', () => {
  it.each([
    ['/api/auth/login?token=abc123', '/api/auth/login?token=[redacted]'],
    ['/login/abc123', '/login/[redacted]'],
    ['/login/abc123?next=%2Fdashboard', '/login/[redacted]?next=%2Fdashboard'],
    ['/team-login/set-password/abc123', '/team-login/set-password/[redacted]'],
    ['/team-login', '/team-login'],
    ['/billing-engine/portal/bps_1a2b', '/billing-engine/portal/[redacted]'],
    [
      '/billing-engine/portal/bps_1a2b/cards/pm_9/default',
      '/billing-engine/portal/[redacted]/cards/[redacted]/default',
    ],
    ['/billing-engine/checkout/cs_77/pay', '/billing-engine/checkout/[redacted]/pay'],
    [
      '/billing-engine/invoices/in_5/tok_5/pdf',
      '/billing-engine/invoices/[redacted]/[redacted]/pdf',
    ],
    ['/billing-engine/test-clock/advance', '/billing-engine/test-clock/advance'],
    ['/billing-engine/assets/engine.css', '/billing-engine/assets/engine.css'],
    [
      '/media/clips/a.mp4?expires=1&signature=s3cr3t',
      '/media/clips/a.mp4?expires=1&signature=[redacted]',
    ],
    [
      '/x?X-Amz-Credential=AKIA&X-Amz-Security-Token=t&X-Amz-Signature=s&keep=1',
      '/x?X-Amz-Credential=[redacted]&X-Amz-Security-Token=[redacted]&X-Amz-Signature=[redacted]&keep=1',
    ],
    ['/order-confirmation?order=cs_test_1', '/order-confirmation?order=[redacted]'],
    [
      '/api/x?session_id=1&customerId=2&Session%5Fid=3',
      '/api/x?session_id=[redacted]&customerId=2&Session%5Fid=[redacted]',
    ],
    ['/api/staff/customers?q=owner', '/api/staff/customers?q=owner'],
    ['/camera/8944110000000001011', '/camera/8944110000000001011'],
    ['/api/x?%E0%A4%A=1&flag', '/api/x?%E0%A4%A=1&flag'],
  ])('%s → %s', (url, expected) => {
    expect(redactUrl(url)).toBe(expected);
  });
});

describe('redactText', () => {
  it('keeps request and job ids whose groups are all digits, and still masks a card beside them', () => {
    const id = 'c2345678-1234-5678-9abc-def012345678';
    expect(redactText(`request ${id}`)).toBe(`request ${id}`);
    expect(redactText('52345678-1234-5678-9abc-def012345678')).toBe(
      '52345678-1234-5678-9abc-def012345678',
    );
    expect(redactText(`${id} paid with 4111-1111-1111-1111`)).toBe(
      `${id} paid with [redacted card number]`,
    );
  });
});

describe('serializeError', () => {
  it('keeps a failed query’s SQL and bound values out, from drizzle and the driver alike', async () => {
    const database = await openTestDatabase();
    try {
      const secret = 'farmer.private@example.com';
      await database.db.execute(sql`create table redaction_probe (email text primary key)`);
      await database.db.execute(sql`insert into redaction_probe (email) values (${secret})`);
      const error = await database.db
        .execute(sql`insert into redaction_probe (email) values (${secret})`)
        .then(
          () => undefined,
          (failure: unknown) => failure as Error,
        );
      expect(error?.message).toContain('insert into redaction_probe');
      // As the pool hands a dropped connection's error over: with its whole client.
      Object.assign(error!, { client: { connectionParameters: { host: 'db.internal' } } });
      const serialized = JSON.stringify(serializeError(error!));
      expect(serialized).not.toContain(secret);
      expect(serialized.toLowerCase()).not.toContain('insert into');
      expect(serialized).not.toContain('db.internal');
      expect(serialized).toContain('Failed query: [SQL and parameters not logged]');
      // What an operator acts on stays: the driver's code (lifted from the cause) and message.
      expect(serializeError(error!)).toMatchObject({ code: '23505' });
      expect(serialized).toContain('redaction_probe_pkey');
      expect(redactText(`x Failed query: select 1 where a = $1\nparams: ${secret} y`)).toBe(
        'x Failed query: [SQL and parameters not logged] y'.replace(' y', ''),
      );
    } finally {
      await database.close();
    }
  });

  it('takes passwords out of URLs in the message, stack, cause and properties', () => {
    const error = Object.assign(
      new Error('Connection to smtps://mailer:hunter2@smtp.example.com:465 failed', {
        cause: new Error('postgres://portal:s3cret@db.example.com/portal refused'),
      }),
      { detail: 'rtsp://cam:pa55@10.0.0.9:554/12: Connection refused', code: 'ECONNREFUSED' },
    );
    const serialized = JSON.stringify(serializeError(error));
    expect(serialized).not.toMatch(/hunter2|s3cret|pa55/);
    expect(serialized).toContain('smtps://[redacted]@smtp.example.com:465');
    expect(serialized).toContain('rtsp://[redacted]@10.0.0.9:554/12');
    expect(serialized).toContain('ECONNREFUSED');
    expect(redactUrlCredentials('see https://example.com/a@b and mailto:x@y')).toBe(
      'see https://example.com/a@b and mailto:x@y',
    );
  });
});

describe('request log', () => {
  const lines: string[] = [];
  let context: TestContext;
  beforeAll(async () => {
    context = await createTestContext(
      { logLevel: 'info' },
      (app) =>
        app.get('/api/test-probe/fails', async () => {
          throw new Error('Connection to smtp://mailer:SMTPPASSWORD0123@smtp.example.com failed');
        }),
      () => ({ logStream: { write: (line: string) => void lines.push(line) } }),
    );
  });
  afterAll(() => context.close());

  it('never holds a token, session id or credential header', async () => {
    const secrets = {
      loginToken: 'LOGINTOKEN0123456789abcdef',
      pageToken: 'PAGETOKEN0123456789abcdef',
      portalSession: 'bps_PORTALSESSION0123456789',
      checkoutSession: 'bcs_CHECKOUTSESSION0123456789',
      invoiceToken: 'INVOICETOKEN0123456789',
      bearer: 'BEARERTOKEN0123456789',
      cookie: 'COOKIEVALUE0123456789',
      stripeSignature: 'STRIPESIGNATURE0123456789',
      smtpPassword: 'SMTPPASSWORD0123',
    };
    const headers = {
      authorization: `Bearer ${secrets.bearer}`,
      cookie: `session=${secrets.cookie}`,
      'stripe-signature': `t=1,v1=${secrets.stripeSignature}`,
      referer: `http://portal.test/login/${secrets.pageToken}`,
    };
    const requests = [
      { method: 'GET' as const, url: `/api/auth/login?token=${secrets.loginToken}` },
      { method: 'POST' as const, url: `/api/auth/login?token=${secrets.loginToken}` },
      { method: 'GET' as const, url: `/login/${secrets.pageToken}` },
      { method: 'GET' as const, url: `/billing-engine/portal/${secrets.portalSession}` },
      {
        method: 'POST' as const,
        url: `/billing-engine/portal/${secrets.portalSession}/cards/pm_1/remove`,
      },
      { method: 'GET' as const, url: `/billing-engine/checkout/${secrets.checkoutSession}` },
      { method: 'POST' as const, url: `/billing-engine/checkout/${secrets.checkoutSession}/pay` },
      { method: 'GET' as const, url: `/billing-engine/invoices/in_1/${secrets.invoiceToken}/pdf` },
      { method: 'GET' as const, url: '/api/auth/user-data' },
      { method: 'POST' as const, url: '/api/webhooks/stripe' },
      { method: 'GET' as const, url: '/api/test-probe/fails' },
    ];
    for (const request of requests) {
      await context.app.inject({
        ...request,
        headers,
        payload: request.method === 'POST' ? {} : undefined,
      });
    }

    const log = lines.join('');
    expect(log).toContain('"url":"/login/[redacted]"');
    expect(log).toContain('"url":"/api/auth/login?token=[redacted]"');
    expect(log).toContain('"url":"/billing-engine/portal/[redacted]"');
    // One line per request (docs/decisions/072).
    expect(log).toContain('"msg":"request"');
    expect(log).not.toContain('incoming request');
    expect(log).toContain('smtp://[redacted]@smtp.example.com');
    for (const [name, secret] of Object.entries(secrets)) {
      expect(log, `${name} leaked into the log`).not.toContain(secret);
    }
  });
});
