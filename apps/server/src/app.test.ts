import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from './app.ts';
import { createTestContext, type TestContext } from '../test/helpers/test-app.ts';

let context: TestContext;
beforeAll(async () => {
  context = await createTestContext();
});
afterAll(() => context.close());

describe('application frame', () => {
  it('reports health', async () => {
    const response = await context.app.inject({ method: 'GET', url: '/api/healthz' });
    expect(response.statusCode).toBe(200);
    // Liveness only: the database is /api/readyz's question (decision 070).
    expect(response.json()).toEqual({ status: 'ok' });
  });

  it('answers unknown API paths and bad JSON with the error model', async () => {
    const unknown = await context.app.inject({ method: 'GET', url: '/api/nothing-here' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({
      code: 'NOT_FOUND',
      message: 'No route for GET /api/nothing-here',
    });
    const badJson = await context.app.inject({
      method: 'POST',
      url: '/api/auth/request-login',
      headers: { 'content-type': 'application/json' },
      payload: '{not json',
    });
    expect(badJson.statusCode).toBe(400);
    expect(badJson.json<{ code: string }>().code).toBe('VALIDATION_FAILED');
    const tooLarge = await context.app.inject({
      method: 'POST',
      url: '/api/auth/request-login',
      payload: { email: `${'a'.repeat(70_000)}@example.com` },
    });
    expect(tooLarge.statusCode).toBe(413);
  });

  it('sends a strict content security policy', async () => {
    const response = await context.app.inject({ method: 'GET', url: '/api/healthz' });
    const policy = String(response.headers['content-security-policy']);
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).not.toContain('unsafe-inline');
  });

  it('publishes OpenAPI from the route schemas', async () => {
    const response = await context.app.inject({ method: 'GET', url: '/api/docs/json' });
    expect(response.statusCode).toBe(200);
    const document = response.json<{ paths: Record<string, unknown> }>();
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining([
        '/api/auth/request-login',
        '/api/auth/login',
        '/api/staff/customers',
      ]),
    );
  });

  it('serves the outbox as JSON, newest first', async () => {
    await context.mailer.send({
      to: 'a@example.com',
      subject: 'first',
      text: 't',
      html: '<p>1</p>',
    });
    context.clock.advance(1000);
    await context.mailer.send({
      to: 'a@example.com',
      subject: 'second',
      text: 't',
      html: '<p>2</p>',
    });
    const response = await context.app.inject({
      method: 'GET',
      url: '/dev/outbox?to=a@example.com',
    });
    const messages = response.json<{ subject: string; createdAt: string }[]>();
    expect(messages.map((message) => message.subject)).toEqual(['second', 'first']);
    expect(Object.keys(messages[0]!)).toEqual(
      expect.arrayContaining(['to', 'subject', 'text', 'html', 'createdAt']),
    );
    const viewer = await context.app.inject({ method: 'GET', url: '/dev/mail' });
    expect(viewer.statusCode).toBe(200);
    expect(viewer.body).toContain('second');
  });
});

describe('single-page app', () => {
  it('serves index.html for deep links and assets with long caching', async () => {
    const webRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'farmcam-web-'));
    fs.mkdirSync(path.join(webRoot, 'assets'));
    fs.writeFileSync(path.join(webRoot, 'index.html'), '<!doctype html><title>SPA</title>');
    fs.writeFileSync(path.join(webRoot, 'assets', 'app-abc123.js'), 'console.log(1)');
    const app = await buildApp(context.config, context.services, { webRoot });
    try {
      const deepLink = await app.inject({ method: 'GET', url: '/camera/8944110000000001011' });
      expect(deepLink.statusCode).toBe(200);
      expect(deepLink.body).toContain('<title>SPA</title>');
      expect(deepLink.headers['cache-control']).toBe('no-cache');
      const asset = await app.inject({ method: 'GET', url: '/assets/app-abc123.js' });
      expect(asset.headers['cache-control']).toContain('immutable');
      const missingAsset = await app.inject({ method: 'GET', url: '/assets/missing.js' });
      expect(missingAsset.statusCode).toBe(404);
      const api = await app.inject({ method: 'GET', url: '/api/unknown' });
      expect(api.statusCode).toBe(404);
      expect(api.json<{ code: string }>().code).toBe('NOT_FOUND');
    } finally {
      await app.close();
      fs.rmSync(webRoot, { recursive: true, force: true });
    }
  });
});
