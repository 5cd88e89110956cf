import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../test/helpers/test-app.ts';
import { ConfigError, loadConfig } from './config/config.ts';
import { clientNetwork } from './lib/client-address.ts';

describe('TRUST_PROXY', () => {
  it('takes a hop count or a list of proxy addresses, never "trust everyone"', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.1, 10.0.0.0/8,fd00::/8' }).trustProxy).toEqual([
      '10.0.0.1',
      '10.0.0.0/8',
      'fd00::/8',
    ]);
    expect(loadConfig({ TRUST_PROXY: 'loopback,uniquelocal' }).trustProxy).toEqual([
      'loopback',
      'uniquelocal',
    ]);
    for (const value of ['true', 'yes', 'TRUE']) {
      expect(() => loadConfig({ TRUST_PROXY: value }), value).toThrow(
        /TRUST_PROXY: true would trust any X-Forwarded-For header; give the number of proxies/,
      );
    }
    for (const value of ['0.0.0.0/0', '::/0', '10.0.0.1/33', 'proxy.example', '1.2.3', '99']) {
      expect(() => loadConfig({ TRUST_PROXY: value }), value).toThrow(ConfigError);
    }
  });
});

/** The app with a probe that answers the client address Fastify worked out. */
async function appTrusting(trustProxy: false | number | string[]): Promise<TestContext> {
  return createTestContext({ trustProxy }, (app) => {
    app.get('/probe/ip', async (request) => ({ ip: request.ip }));
  });
}

const ipOf = async (
  context: TestContext,
  remoteAddress: string,
  forwardedFor: string | undefined,
) =>
  (
    await context.app.inject({
      method: 'GET',
      url: '/probe/ip',
      remoteAddress,
      headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
    })
  ).json<{ ip: string }>().ip;

describe('the client address behind proxies', () => {
  let untrusting: TestContext;
  let oneHop: TestContext;
  let listed: TestContext;
  beforeAll(async () => {
    // One after the other: the machine may be busy, and each app starts its own database.
    untrusting = await appTrusting(false);
    oneHop = await appTrusting(1);
    listed = await appTrusting(['10.0.0.0/8']);
  }, 120_000);
  afterAll(async () => {
    for (const context of [untrusting, oneHop, listed]) await context?.close();
  });

  it('ignores X-Forwarded-For without TRUST_PROXY: a forged header changes nothing', async () => {
    expect(await ipOf(untrusting, '203.0.113.7', '198.51.100.1')).toBe('203.0.113.7');
    expect(await ipOf(untrusting, '203.0.113.7', '1.1.1.1, 2.2.2.2')).toBe('203.0.113.7');
  });

  it('with one hop, takes only the entry the proxy added (the last one)', async () => {
    expect(await ipOf(oneHop, '10.1.1.1', '198.51.100.1')).toBe('198.51.100.1');
    // The client forged the first entries; its own proxy appended the real address.
    expect(await ipOf(oneHop, '10.1.1.1', '1.1.1.1, 2.2.2.2, 198.51.100.1')).toBe('198.51.100.1');
    expect(await ipOf(oneHop, '10.1.1.1', undefined)).toBe('10.1.1.1');
  });

  it('with listed proxies, walks back over those addresses only', async () => {
    expect(await ipOf(listed, '10.1.1.1', '1.1.1.1, 198.51.100.1, 10.2.2.2')).toBe('198.51.100.1');
    // A client that is not a listed proxy cannot name another address.
    expect(await ipOf(listed, '203.0.113.7', '198.51.100.1')).toBe('203.0.113.7');
  });
});

describe('clientNetwork', () => {
  it('counts IPv4 addresses alone and IPv6 addresses by their /64', () => {
    expect(clientNetwork('203.0.113.7')).toBe('203.0.113.7');
    expect(clientNetwork('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(clientNetwork('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(clientNetwork('2001:db8:1:2::9')).toBe('2001:db8:1:2::/64');
    expect(clientNetwork('2001:0DB8:0001:0002:ffff::1')).toBe('2001:db8:1:2::/64');
    expect(clientNetwork('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(clientNetwork('::1')).toBe('0:0:0:0::/64');
  });
});
