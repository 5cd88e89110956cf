/**
 * The anonymous livestream-url and embed page under hostile use (docs/decisions/063, 100): limits
 * per network and per stream, views once per network and day and bounded, sites only from a
 * proven page load, and "seen on a website" only from a real page load or a player's Origin.
 * A ready clip is put in the tables directly: no recording is needed here.
 */
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, nextIp, type TestContext } from '../../../test/helpers/test-app.ts';
import { queryRows } from '../../db/client.ts';
import { demoIccid, seedDemoData } from '../../seed/demo.ts';
import {
  clips,
  livestreams,
  livestreamViewerDays,
  livestreamViews,
  rateLimits,
} from '../../db/schema.ts';
import { livestreamAlertsRepository } from '../livestream-alerts/livestream-alerts.repository.ts';
import { otherSitesHost } from '../livestream/public-links.rules.ts';
import { publicLivestreamLimits, recordedAtCaption } from './public-playback.service.ts';
import { newPublicId } from '../livestream/livestream-setup.service.ts';
import { pageLoadTokenSeconds } from './page-load-token.ts';

let context: TestContext;
let publicId: string;
let livestreamId: string;
const farmyard = demoIccid(103); // Heavy monthly, active
const browser = {
  'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/156',
  'accept-language': 'en-GB',
};

beforeAll(async () => {
  context = await createTestContext();
  await seedDemoData(context.database.db, context.clock);
  publicId = newPublicId();
  const [row] = await context.database.db
    .insert(livestreams)
    .values({
      simIccid: farmyard,
      publicId,
      isActive: true,
      activatedAt: context.clock.now(),
      configuredAt: context.clock.now(),
    })
    .returning();
  livestreamId = row!.id;
  await context.database.db.insert(clips).values({
    livestreamId,
    storageKey: `livestreams/${livestreamId}/first.mp4`,
    status: 'ready',
    durationSeconds: 15,
    recordedAt: context.clock.now(),
  });
});
afterAll(() => context.close());

beforeEach(async () => {
  await context.database.db.delete(rateLimits);
  await context.database.db.delete(livestreamViews);
  await context.database.db.delete(livestreamViewerDays);
  await context.database.db
    .update(livestreams)
    .set({ lastSeenOnSiteAt: null })
    .where(eq(livestreams.id, livestreamId));
  context.clock.advance(60_000);
});

const urlOf = (query = '') => `/api/livestreaming/livestream-url?camera_id=${publicId}${query}`;

function livestreamUrl(
  query = '',
  options: { ip?: string; headers?: Record<string, string> } = {},
) {
  return context.app.inject({
    method: 'GET',
    url: urlOf(query),
    remoteAddress: options.ip ?? nextIp(),
    headers: { ...browser, ...options.headers },
  });
}

function embedPage(options: { ip: string; headers?: Record<string, string> }) {
  return context.app.inject({
    method: 'GET',
    url: `/embed/${publicId}`,
    remoteAddress: options.ip,
    headers: { ...browser, ...options.headers },
  });
}

/** The page-load token the embed page gave its script, if any. */
const pageLoadOf = (html: string) => /data-page-load="([^"]+)"/.exec(html)?.[1];

async function viewRows() {
  return queryRows<{ referrer_host: string; views: number }>(
    context.database.db,
    sql`select referrer_host, views from livestream_views where livestream_id = ${livestreamId}
        order by referrer_host`,
  );
}

async function lastSeenOnSite() {
  const [row] = await context.database.db
    .select({ at: livestreams.lastSeenOnSiteAt })
    .from(livestreams)
    .where(eq(livestreams.id, livestreamId));
  return row?.at ?? null;
}

describe('views', () => {
  it('300 calls with invented sites do not make 300 view rows, nor mark the code seen', async () => {
    const ip = nextIp();
    for (let call = 0; call < 300; call += 1) {
      // Spread over networks, as a determined caller would, so the limits are not what stops it.
      await livestreamUrl(`&site=invented-${call}.example`, {
        ip: call % 50 === 0 ? ip : nextIp(),
        headers: { referer: `https://invented-${call}.example/` },
      });
    }
    const rows = await viewRows();
    expect(rows.length).toBeLessThanOrEqual(publicLivestreamLimits.sitesPerDay + 1);
    expect(rows.map((row) => row.referrer_host)).toEqual(['direct']);
    expect(await lastSeenOnSite()).toBeNull();
  });

  it('counts a network once per UK day, however often it reloads and whatever browser it names', async () => {
    const ip = nextIp();
    for (let reload = 0; reload < 5; reload += 1) {
      expect((await livestreamUrl('', { ip })).statusCode).toBe(200);
    }
    // Twenty User-Agents from one address: still one viewer (decision 100).
    for (let agent = 0; agent < 20; agent += 1) {
      await livestreamUrl('', {
        ip,
        headers: { 'user-agent': `Mozilla/5.0 (Windows NT 10.0) Chrome/${100 + agent}` },
      });
    }
    await livestreamUrl('', { ip: nextIp() });
    expect(await viewRows()).toEqual([{ referrer_host: 'direct', views: 2 }]);
    // The player's periodic checks count nothing.
    await livestreamUrl('&refresh=1');
    expect(await viewRows()).toEqual([{ referrer_host: 'direct', views: 2 }]);
    // A new UK day counts the network again.
    context.clock.advance(24 * 3600_000);
    await livestreamUrl('', { ip });
    expect((await viewRows()).reduce((sum, row) => sum + row.views, 0)).toBe(3);
  });

  it('counts the addresses of one IPv6 /64 as one network, another /64 as another', async () => {
    for (const ip of ['2001:db8:7:1::1', '2001:db8:7:1::2', '2001:db8:7:1:abcd:ef01:2345:6789']) {
      expect((await livestreamUrl('', { ip })).statusCode).toBe(200);
    }
    // The same network written out in full is the same network.
    await livestreamUrl('', { ip: '2001:0db8:0007:0001:0000:0000:0000:0003' });
    expect(await viewRows()).toEqual([{ referrer_host: 'direct', views: 1 }]);
    await livestreamUrl('', { ip: '2001:db8:7:2::1' });
    expect(await viewRows()).toEqual([{ referrer_host: 'direct', views: 2 }]);
    // The stored viewer-days hold a keyed hash, not the address nor its network.
    const stored = await context.database.db.select().from(livestreamViewerDays);
    expect(stored.length).toBeGreaterThan(0);
    for (const row of stored) expect(row.viewerHash).toMatch(/^[A-Za-z0-9_-]{32}$/);
  });

  it(`records at most ${publicLivestreamLimits.sitesPerDay} distinct proven sites a day, the rest together`, async () => {
    for (let site = 0; site < publicLivestreamLimits.sitesPerDay + 15; site += 1) {
      // Each from its own network: one network counts once a day, whatever sites it claims.
      const ip = nextIp();
      const page = await embedPage({
        ip,
        headers: { referer: `https://site-${site}.example/`, 'sec-fetch-dest': 'iframe' },
      });
      const response = await livestreamUrl(`&load=${encodeURIComponent(pageLoadOf(page.body)!)}`, {
        ip,
      });
      expect(response.statusCode).toBe(200);
    }
    const rows = await viewRows();
    expect(rows).toHaveLength(publicLivestreamLimits.sitesPerDay + 1);
    expect(rows.find((row) => row.referrer_host === otherSitesHost)?.views).toBe(15);
  });

  it('names no site from an Origin or Referer alone: forged Origins add no rows', async () => {
    for (let site = 0; site < 10; site += 1) {
      const response = await livestreamUrl('', {
        headers: {
          origin: `https://made-up-${site}.example`,
          referer: `https://made-up-${site}.example/`,
        },
      });
      expect(response.statusCode).toBe(200);
    }
    expect(await viewRows()).toEqual([{ referrer_host: 'direct', views: 10 }]);
  });
});

describe('seen on a website', () => {
  it('comes from the embed page loaded inside a real page, through its page-load token', async () => {
    const ip = nextIp();
    const page = await embedPage({
      ip,
      headers: { referer: 'https://www.farm-shop.example/webcam', 'sec-fetch-dest': 'iframe' },
    });
    expect(page.statusCode).toBe(200);
    expect(page.headers['cache-control']).toBe('private, no-store');
    const token = pageLoadOf(page.body);
    expect(token).toBeDefined();

    // The script's own request: its Referer is the embed page itself.
    const response = await livestreamUrl(`&load=${encodeURIComponent(token!)}`, {
      ip,
      headers: { referer: `http://portal.test/embed/${publicId}` },
    });
    expect(response.statusCode).toBe(200);
    expect(await viewRows()).toEqual([{ referrer_host: 'www.farm-shop.example', views: 1 }]);
    expect((await lastSeenOnSite())?.toISOString()).toBe(context.clock.now().toISOString());
  });

  it('does not come from an invented site= value, a portal page, or a token that is not genuine', async () => {
    const ip = nextIp();
    await livestreamUrl('&site=www.farm-shop.example', { ip });
    await livestreamUrl('', { ip, headers: { origin: 'http://portal.test' } });
    await livestreamUrl('', { ip, headers: { referer: 'https://blog.example/post' } });

    const fromPortal = await embedPage({
      ip,
      headers: { referer: 'http://portal.test/livestream' },
    });
    // Their tokens prove a page load on no website ('-'): opened directly.
    const siteOf = (html: string) => pageLoadOf(html)?.split('.')[1];
    expect(siteOf(fromPortal.body)).toBe('-');
    const notFramed = await embedPage({
      ip,
      headers: { referer: 'https://blog.example/', 'sec-fetch-dest': 'document' },
    });
    expect(siteOf(notFramed.body)).toBe('-');

    const token = pageLoadOf(
      (await embedPage({ ip, headers: { referer: 'https://www.farm-shop.example/' } })).body,
    )!;
    const [issuedAt, , tag, signature] = token.split('.');
    const otherSite = `${issuedAt}.${Buffer.from('evil.example').toString('base64url')}.${tag}.${signature}`;
    await livestreamUrl(`&load=${encodeURIComponent(otherSite)}`, { ip });
    // Another viewer cannot reuse it, and it does not last.
    await livestreamUrl(`&load=${encodeURIComponent(token)}`, { ip: nextIp() });
    context.clock.advance((pageLoadTokenSeconds + 1) * 1000);
    await livestreamUrl(`&load=${encodeURIComponent(token)}`, { ip });

    expect(await lastSeenOnSite()).toBeNull();
    expect((await viewRows()).map((row) => row.referrer_host)).toEqual(['direct']);
  });

  it('comes from a player on another website that calls livestream-url itself (its Origin)', async () => {
    await livestreamUrl('', { headers: { origin: 'https://www.farm-shop.example' } });
    expect(await lastSeenOnSite()).not.toBeNull();
  });

  it('so a stream whose code only ever got invented sites is switched off after 10 days', async () => {
    for (let call = 0; call < 5; call += 1) await livestreamUrl(`&site=fake-${call}.example`);
    const now = new Date(context.clock.now().getTime() + 11 * 86_400_000);
    const switchedOff = await livestreamAlertsRepository.switchOffUnused(
      context.database.db,
      new Date(now.getTime() - 10 * 86_400_000),
      now,
      'test',
    );
    expect(switchedOff.map((row) => row.id)).toContain(livestreamId);
    await context.database.db
      .update(livestreams)
      .set({ isActive: true, disabledReason: null })
      .where(eq(livestreams.id, livestreamId));
  });
});

describe('what the player is told', () => {
  it('says when the clip was recorded, in UK time, in a header a player on any site may read', async () => {
    const response = await livestreamUrl();
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-clip-caption']).toMatch(
      /^Recorded at \d\d:\d\d on \d{1,2} [A-Z][a-z]{2} \(UK time\)$/,
    );
    expect(String(response.headers['access-control-expose-headers'])).toContain('x-clip-caption');
  });

  it('words the caption in UK time, summer and winter', () => {
    expect(recordedAtCaption(new Date('2026-07-01T13:05:00Z'))).toBe(
      'Recorded at 14:05 on 1 Jul (UK time)',
    );
    expect(recordedAtCaption(new Date('2026-11-24T09:07:00Z'))).toBe(
      'Recorded at 09:07 on 24 Nov (UK time)',
    );
  });

  it('answers a switched-off stream with 404 "switched off", so the website shows a poster', async () => {
    await context.database.db
      .update(livestreams)
      .set({ isActive: false })
      .where(eq(livestreams.id, livestreamId));
    try {
      const response = await livestreamUrl();
      expect(response.statusCode).toBe(404);
      expect(response.headers['content-type']).toContain('text/plain');
      expect(response.headers['x-livestream-state']).toBe('off');
      expect(response.body).toBe(
        'The farm has switched off Farmyard’s livestream for now. It plays here again by itself when it is switched back on.',
      );
      expect(response.headers['x-camera-name']).toBe('Farmyard');
      // Not final: the player asks again in five minutes.
      expect(response.headers['retry-after']).toBe('300');
    } finally {
      await context.database.db
        .update(livestreams)
        .set({ isActive: true })
        .where(eq(livestreams.id, livestreamId));
    }
  });
});

describe('malformed requests', () => {
  it('answers a malformed id in plain text, not JSON', async () => {
    const response = await context.app.inject({
      method: 'GET',
      url: '/api/livestreaming/livestream-url?camera_id=not%20an%20id',
      remoteAddress: nextIp(),
    });
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toContain('text/plain');
    expect(response.body).toBe('This livestream address is not valid.');
    expect(response.headers['access-control-allow-origin']).toBe('*');
  });
});

describe('limits', () => {
  it(`allows a network ${publicLivestreamLimits.perNetwork.limit} requests a minute, then a plain-text 429 with Retry-After`, async () => {
    const ip = nextIp();
    for (let call = 0; call < publicLivestreamLimits.perNetwork.limit; call += 1) {
      expect((await livestreamUrl('&refresh=1', { ip })).statusCode).toBe(200);
    }
    const refused = await livestreamUrl('', { ip });
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(refused.headers['access-control-allow-origin']).toBe('*');
    expect(refused.headers['cache-control']).toBe('no-store');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(refused.body).toBe('Too many requests for this livestream. Please try again shortly.');
    // The embed page shares the allowance.
    const page = await embedPage({ ip });
    expect(page.statusCode).toBe(429);
    expect(page.headers['retry-after']).toBeDefined();
    // Other viewers are not affected.
    expect((await livestreamUrl()).statusCode).toBe(200);
    context.clock.advance(60_000);
    expect((await livestreamUrl('', { ip })).statusCode).toBe(200);
  });

  it('limits a stream however many networks ask, and invented ids cost no rows', async () => {
    await context.database.db.insert(rateLimits).values({
      key: `livestream-url:livestream:${livestreamId}`,
      hits: publicLivestreamLimits.perLivestream.limit,
      resetAt: new Date(context.clock.now().getTime() + 30_000),
    });
    const refused = await livestreamUrl();
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe('30');

    await context.database.db.delete(rateLimits);
    for (let call = 0; call < 20; call += 1) {
      await context.app.inject({
        method: 'GET',
        url: `/api/livestreaming/livestream-url?camera_id=ls_invented${String(call).padStart(14, '0')}`,
        remoteAddress: '203.0.113.9',
      });
    }
    const keys = await context.database.db.select({ key: rateLimits.key }).from(rateLimits);
    expect(keys.map((row) => row.key)).toEqual(['livestream-url:network:203.0.113.9']);
  });
});
