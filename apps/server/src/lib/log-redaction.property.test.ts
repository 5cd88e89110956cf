/**
 * No generated secret of a known shape survives into a log line, whether it came in a request
 * (URL, headers, body) or in an error (message, cause, properties), or was handed to a logger
 * under a sensitive key or inside a message (docs/decisions/072).
 * `REDACTION_SEED=<seed>` replays a failure; `REDACTION_RUNS=<n>` runs more cases.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/helpers/test-app.ts';
import { createLogger } from './logger.ts';
import { redactedCardNumber, redactText, serializeError } from './log-redaction.ts';

const runs = Number(process.env.REDACTION_RUNS ?? 60);
const seed = process.env.REDACTION_SEED ? Number(process.env.REDACTION_SEED) : undefined;
const parameters = { numRuns: runs, ...(seed === undefined ? {} : { seed }) };

const alphanumeric = fc.constantFrom(
  ...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'.split(''),
);
const base64url = fc.constantFrom(
  ...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'.split(''),
);
/** Long enough that finding it in a log line cannot be a coincidence. */
const word = (characters: fc.Arbitrary<string>, minLength = 16, maxLength = 40) =>
  fc.string({ unit: characters, minLength, maxLength });

/** A card number as people and payment forms write it: bare, or in groups by spaces or dashes. */
const cardNumber = fc
  .tuple(
    fc.constantFrom('2', '3', '4', '5', '6'),
    fc.string({ unit: fc.constantFrom(...'0123456789'.split('')), minLength: 12, maxLength: 18 }),
    fc.constantFrom('', ' ', '-'),
  )
  .map(([first, rest, separator]) => `${first}${rest}`.replace(/(\d{4})(?=\d)/g, `$1${separator}`));

const loginToken = word(base64url, 32, 43);
const stripeClientSecret = fc
  .tuple(
    fc.constantFrom('pi', 'seti', 'cs_test', 'cs_live'),
    word(alphanumeric, 14, 24),
    word(alphanumeric),
  )
  .map(([prefix, id, secret]) => `${prefix}_${id}_secret_${secret}`);
const stripeKey = fc
  .tuple(fc.constantFrom('sk_live_', 'sk_test_', 'rk_live_', 'whsec_'), word(alphanumeric, 24, 40))
  .map(([prefix, key]) => `${prefix}${key}`);
const billingSession = fc
  .tuple(fc.constantFrom('bps_', 'bcs_', 'cs_test_', 'cs_live_'), word(alphanumeric))
  .map(([prefix, id]) => `${prefix}${id}`);
const urlPassword = word(alphanumeric, 12, 32);
const credentialUrl = fc
  .tuple(
    fc.constantFrom('smtp', 'smtps', 'postgres', 'postgresql', 'rtsp'),
    fc.constantFrom('mailer', 'portal', 'postgres', 'cam'),
    urlPassword,
  )
  .map(([scheme, user, password]) => ({
    url: `${scheme}://${user}:${password}@host.example.com:5432/portal`,
    secret: password,
  }));

/** A secret and where in free text it may be found: these shapes are recognised anywhere. */
const secretInText = fc.oneof(
  stripeClientSecret.map((secret) => ({ text: secret, secret })),
  stripeKey.map((secret) => ({ text: secret, secret })),
  billingSession.map((secret) => ({ text: secret, secret })),
  cardNumber.map((secret) => ({ text: secret, secret })),
  credentialUrl.map(({ url, secret }) => ({ text: url, secret })),
);
const filler = fc.string({ unit: fc.constantFrom(...'abc xyz:/.,;()='.split('')), maxLength: 20 });

describe('redactText', () => {
  it('takes every known secret shape out of surrounding text', () => {
    fc.assert(
      fc.property(filler, secretInText, filler, (before, { text, secret }, after) => {
        expect(redactText(`${before} ${text} ${after}`)).not.toContain(secret);
      }),
      parameters,
    );
  });

  it('masks card numbers and keeps what operators need', () => {
    expect(redactText('card 4242 4242 4242 4242 declined')).toBe(
      `card ${redactedCardNumber} declined`,
    );
    expect(redactText('card 4000-0000-0000-0002')).toBe(`card ${redactedCardNumber}`);
    expect(redactText('amex 378282246310005')).toBe(`amex ${redactedCardNumber}`);
    // An ICCID, a millisecond timestamp, a date and a UUID are not card numbers.
    for (const kept of [
      'SIM 8944110000000001011 attached',
      'at 1773144000000',
      '2026-03-10 12:00:00',
      'clip 3f2a4c1e-5b6d-4e7f-8a9b-0c1d2e3f4a5b',
      'amount 4999 pence',
    ]) {
      expect(redactText(kept)).toBe(kept);
    }
  });
});

describe('errors', () => {
  it('no secret survives serialization of an error, its cause or its properties', () => {
    fc.assert(
      fc.property(secretInText, secretInText, secretInText, (inMessage, inCause, inProperty) => {
        const error = Object.assign(
          new Error(`Provider refused: ${inMessage.text}`, {
            cause: new Error(`because ${inCause.text}`),
          }),
          { detail: { output: `last words: ${inProperty.text}` }, code: 'E_PROVIDER' },
        );
        const serialized = JSON.stringify(serializeError(error));
        for (const { secret } of [inMessage, inCause, inProperty]) {
          expect(serialized).not.toContain(secret);
        }
        expect(serialized).toContain('E_PROVIDER');
      }),
      parameters,
    );
  });
});

describe('the logger', () => {
  const lines: string[] = [];
  const logger = createLogger('info', { write: (line: string) => void lines.push(line) });

  it('drops sensitive keys at any depth and secrets in any string or message', () => {
    fc.assert(
      fc.property(
        word(alphanumeric, 12, 30),
        fc.string({ unit: fc.constantFrom(...'0123456789'.split('')), minLength: 3, maxLength: 4 }),
        secretInText,
        secretInText,
        loginToken,
        (password, cvc, inField, inMessage, token) => {
          lines.length = 0;
          logger.info(
            {
              customer: { password, card: { cvc, number: inField.text } },
              body: { newPassword: password, token },
              note: inField.text,
              list: [inField.text],
            },
            `Checkout failed for ${inMessage.text}`,
          );
          logger.warn('Retrying %s', inMessage.text);
          logger.error(new Error(`Declined ${inMessage.text}`));
          const log = lines.join('');
          for (const secret of [password, token, inField.secret, inMessage.secret]) {
            expect(log).not.toContain(secret);
          }
          const [first] = lines.map(
            (line) => JSON.parse(line) as { customer: { card: { cvc: string } } },
          );
          expect(first!.customer.card.cvc).toBe('[redacted]');
        },
      ),
      parameters,
    );
  });
});

describe('requests', () => {
  const lines: string[] = [];
  let context: TestContext;
  beforeAll(async () => {
    context = await createTestContext(
      { logLevel: 'info' },
      (app) =>
        app.post('/api/test-probe/provider-fails', async (request) => {
          // A provider error that quotes what it was sent: the error log must not repeat it.
          throw new Error(`Provider said: ${String(request.headers['x-probe'])}`);
        }),
      () => ({ logStream: { write: (line: string) => void lines.push(line) } }),
    );
  });
  afterAll(() => context.close());

  const requestWithSecret = fc.oneof(
    loginToken.map((token) => ({ url: `/login/${token}`, secret: token })),
    loginToken.map((token) => ({ url: `/team-login/set-password/${token}`, secret: token })),
    loginToken.map((token) => ({ url: `/api/auth/login?token=${token}`, secret: token })),
    loginToken.map((token) => ({ url: `/metrics?token=${token}`, secret: token })),
    billingSession.map((id) => ({ url: `/billing-engine/portal/${id}`, secret: id })),
    billingSession.map((id) => ({ url: `/billing-engine/checkout/${id}/pay`, secret: id })),
    billingSession.map((id) => ({ url: `/order-confirmation?order=${id}`, secret: id })),
    stripeClientSecret.map((secret) => ({ url: `/activate?payment=${secret}`, secret })),
    cardNumber.map((card) => ({ url: `/api/x?pan=${encodeURIComponent(card)}`, secret: card })),
  );

  it('no secret in the URL, a credential header or an error reaches the log', async () => {
    await fc.assert(
      fc.asyncProperty(
        requestWithSecret,
        loginToken,
        secretInText,
        async (inUrl, bearer, inError) => {
          lines.length = 0;
          await context.app.inject({
            method: 'GET',
            url: inUrl.url,
            headers: { authorization: `Bearer ${bearer}`, cookie: `session=${bearer}` },
          });
          await context.app.inject({
            method: 'POST',
            url: '/api/test-probe/provider-fails',
            headers: { 'x-probe': inError.text, authorization: `Bearer ${bearer}` },
            payload: { password: bearer },
          });
          const log = lines.join('');
          expect(log).toContain('"msg":"request"');
          expect(log).toContain('Provider said');
          for (const secret of [
            inUrl.secret,
            encodeURIComponent(inUrl.secret),
            bearer,
            inError.secret,
          ]) {
            expect(log).not.toContain(secret);
          }
        },
      ),
      parameters,
    );
  });
});
