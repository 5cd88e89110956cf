/**
 * Fastify's own errors answer in the one error model, with the security headers, also those
 * answered before any hook runs (docs/decisions/064). Each case was a fuzz find.
 */
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../test/helpers/test-app.ts';

let context: TestContext;
beforeAll(async () => {
  context = await createTestContext();
});
afterAll(() => context.close());

function expectErrorModel(
  response: { statusCode: number; headers: Record<string, unknown>; body: string },
  status: number,
  code: string,
) {
  expect(response.statusCode).toBe(status);
  expect(JSON.parse(response.body)).toEqual({ code, message: expect.any(String) });
  expect(response.headers['x-content-type-options']).toBe('nosniff');
  expect(response.headers['content-security-policy']).toContain("default-src 'self'");
  expect(response.headers['x-frame-options']).toBe('DENY');
}

describe('error model for Fastify’s own errors', () => {
  it('a path parameter longer than the router allows: 414 with the headers', async () => {
    const response = await context.app.inject({
      method: 'GET',
      url: `/api/cameras/sim-info/${'9'.repeat(600)}`,
    });
    expectErrorModel(response, 414, 'URI_TOO_LONG');
  });

  it('a malformed percent-encoding in the address: 400 with the headers', async () => {
    const response = await context.app.inject({
      method: 'GET',
      url: '/api/auth/user-data%E0%A4%A',
    });
    expectErrorModel(response, 400, 'VALIDATION_FAILED');
    expect(response.body).not.toContain('%E0');
  });

  it('bad JSON, an empty JSON body and a prototype key: 400 in plain words', async () => {
    for (const payload of ['{"email":', '', '{"__proto__":{"isAdmin":true}}']) {
      const response = await context.app.inject({
        method: 'POST',
        url: '/api/auth/request-login',
        headers: { 'content-type': 'application/json' },
        payload,
      });
      expectErrorModel(response, 400, 'VALIDATION_FAILED');
      expect(response.json<{ message: string }>().message).not.toMatch(/FST_|Unexpected token/);
    }
  });

  it('an unsupported content type: 415', async () => {
    const response = await context.app.inject({
      method: 'POST',
      url: '/api/auth/request-login',
      headers: { 'content-type': 'application/xml' },
      payload: '<email>a@example.com</email>',
    });
    expectErrorModel(response, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('a body over the limit: 413', async () => {
    const response = await context.app.inject({
      method: 'POST',
      url: '/api/auth/request-login',
      payload: { email: `${'a'.repeat(70_000)}@example.com` },
    });
    expectErrorModel(response, 413, 'PAYLOAD_TOO_LARGE');
  });

  it('an unknown route for any method: 404', async () => {
    const response = await context.app.inject({ method: 'DELETE', url: '/api/cameras/plansV2' });
    expectErrorModel(response, 404, 'NOT_FOUND');
  });

  it('headers too large for the HTTP parser: 431 on the socket, same model and headers', async () => {
    await context.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = context.app.server.address() as AddressInfo;
    const response = await new Promise<{
      statusCode: number;
      headers: Record<string, unknown>;
      body: string;
    }>((resolve, reject) => {
      const outgoing = httpRequest(
        { host: '127.0.0.1', port, path: '/api/healthz', headers: { 'x-big': 'a'.repeat(20_000) } },
        (incoming) => {
          let body = '';
          incoming.on('data', (chunk: Buffer) => (body += chunk.toString()));
          incoming.on('end', () =>
            resolve({ statusCode: incoming.statusCode ?? 0, headers: incoming.headers, body }),
          );
        },
      );
      outgoing.on('error', reject);
      outgoing.end();
    });
    expectErrorModel(response, 431, 'HEADERS_TOO_LARGE');
  });
});

describe('validation failures (decision 014)', () => {
  const requestLogin = (payload: unknown) =>
    context.app.inject({
      method: 'POST',
      url: '/api/auth/request-login',
      payload: payload as object,
    });

  it('answer a sentence a farmer understands, with the field apart', async () => {
    for (const payload of [{ email: 42 }, {}, { email: 'not-an-address' }]) {
      const response = await requestLogin(payload);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({
        code: 'VALIDATION_FAILED',
        message: 'Please enter a valid e-mail address.',
        field: 'email',
      });
    }
  });

  it('never pass on zod’s own wording', async () => {
    const response = await context.app.inject({
      method: 'GET',
      url: '/api/cameras/sim-info/12ab',
    });
    // Unauthenticated: whatever the order of checks, no raw schema text reaches the user.
    expect(response.body).not.toMatch(/Invalid input|expected string|params /);
  });
});
