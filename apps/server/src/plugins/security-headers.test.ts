import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { contentSecurityPolicy, securityHeadersPlugin } from './security-headers.ts';

async function policyWith(mediaOrigins?: string[]) {
  const app = Fastify();
  await app.register(securityHeadersPlugin, { isHttps: false, mediaOrigins });
  app.get('/', async () => 'ok');
  const response = await app.inject({ method: 'GET', url: '/' });
  await app.close();
  return String(response.headers['content-security-policy']);
}

describe('security headers: media origins', () => {
  it('keeps the strict policy when video plays from our own origin', async () => {
    expect(await policyWith()).toBe(contentSecurityPolicy);
    expect(await policyWith([])).toBe(contentSecurityPolicy);
  });

  it('lets pages play clips from the storage bucket, and nothing else changes', async () => {
    const policy = await policyWith(['https://farm-clips.s3.eu-west-2.amazonaws.com']);
    expect(policy).toContain(
      "media-src 'self' blob: https://farm-clips.s3.eu-west-2.amazonaws.com;",
    );
    expect(policy.replace(' https://farm-clips.s3.eu-west-2.amazonaws.com', '')).toBe(
      contentSecurityPolicy,
    );
  });
});
