/**
 * Public livestream links (docs/decisions/096): made, revoked and re-issued by the owner; an embed
 * code plays only on its listed sites (Origin or Referer), a link stops at its expiry, the
 * livestream's own code plays as before, and views count once per viewer and day, bots left out.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createActors, type Actors } from '../../../test/helpers/authorization.ts';
import { createTestContext, nextIp, type TestContext } from '../../../test/helpers/test-app.ts';
import {
  auditLog,
  clips,
  livestreamLinkViews,
  livestreamViewerDays,
  livestreams,
  rateLimits,
} from '../../db/schema.ts';
import { demoIccid, seedDemoData } from '../../seed/demo.ts';
import { newPublicId } from './livestream.service.ts';
import { isBrowserRequest, isSiteAllowed, normaliseDomain } from './public-links.rules.ts';

let context: TestContext;
let actors: Actors;
let publicId: string;
const farmyard = demoIccid(103); // Heavy monthly, active
const browser = {
  'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/156 Safari/537.36',
  'accept-language': 'en-GB,en;q=0.9',
};

beforeAll(async () => {
  context = await createTestContext();
  actors = await createActors(context, 'demo@example.com');
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
  await context.database.db.insert(clips).values({
    livestreamId: row!.id,
    storageKey: `livestreams/${row!.id}/first.mp4`,
    status: 'ready',
    durationSeconds: 15,
    recordedAt: context.clock.now(),
  });
});
afterAll(() => context.close());
beforeEach(async () => {
  await context.database.db.delete(rateLimits);
});

const owner = () => actors.headers.owner;
const post = (url: string, payload: object, headers = owner()) =>
  context.app.inject({ method: 'POST', url, payload, headers, remoteAddress: nextIp() });
const list = (headers = owner()) =>
  context.app.inject({
    method: 'GET',
    url: `/api/livestreaming/links?camera_id=${farmyard}`,
    headers,
  });

async function createEmbed(domains: string[], extra: object = {}) {
  const response = await post('/api/livestreaming/links', {
    camera_id: farmyard,
    kind: 'embed',
    allowed_domains: domains,
    ...extra,
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json().link as {
    id: string;
    url: string;
    allowedDomains: string[];
    embedCode: string;
  };
}

const tokenOf = (url: string) => url.split('/embed/')[1]!;

function livestreamUrl(id: string, headers: Record<string, string> = {}, ip = nextIp()) {
  return context.app.inject({
    method: 'GET',
    url: `/api/livestreaming/livestream-url?camera_id=${id}`,
    remoteAddress: ip,
    headers: { ...browser, ...headers },
  });
}

function embedPage(id: string, headers: Record<string, string> = {}, ip = nextIp()) {
  return context.app.inject({
    method: 'GET',
    url: `/embed/${id}`,
    remoteAddress: ip,
    headers: { ...browser, ...headers },
  });
}

describe('the rules', () => {
  it('writes domains as lower-case hosts and matches subdomains of a wildcard only', () => {
    expect(normaliseDomain('https://WWW.Farm-Shop.example/webcam?x=1')).toBe(
      'www.farm-shop.example',
    );
    expect(normaliseDomain(' farm.example:8080 ')).toBe('farm.example:8080');
    expect(normaliseDomain('*.Farm.example')).toBe('*.farm.example');
    expect(() => normaliseDomain('not a domain')).toThrow(/is not a website domain/);
    expect(() => normaliseDomain('ftp://farm.example')).toThrow(/is not a website domain/);
    expect(() => normaliseDomain('farm')).toThrow(/is not a website domain/);
    expect(isSiteAllowed('shop.farm.example', ['*.farm.example'])).toBe(true);
    expect(isSiteAllowed('farm.example', ['*.farm.example'])).toBe(false);
    expect(isSiteAllowed('evilfarm.example', ['*.farm.example'])).toBe(false);
    expect(isSiteAllowed('farm.example:8080', ['farm.example'])).toBe(true);
    expect(isSiteAllowed('farm.example:8080', ['farm.example:9090'])).toBe(false);
    expect(isSiteAllowed(null, ['farm.example'])).toBe(false);
  });

  it('counts browsers, not crawlers, preview fetchers, headless or scripted clients', () => {
    const as = (userAgent: string, acceptLanguage: string | undefined = 'en-GB') =>
      isBrowserRequest({ userAgent, acceptLanguage });
    expect(as(browser['user-agent'])).toBe(true);
    expect(
      as('Mozilla/5.0 (iPhone; CPU iPhone OS 17_0) AppleWebKit/605 Mobile/15E148 Safari/604.1'),
    ).toBe(true);
    expect(as('Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)')).toBe(
      false,
    );
    expect(as('facebookexternalhit/1.1')).toBe(false);
    expect(as('Mozilla/5.0 (X11; Linux x86_64) HeadlessChrome/120.0 Safari/537.36')).toBe(false);
    expect(as('WhatsApp/2.23 A')).toBe(false);
    expect(as('curl/8.0')).toBe(false);
    expect(as(browser['user-agent'], '')).toBe(false);
  });
});

describe('links and embed codes', () => {
  it('says clearly what is wrong with a link or an embed code', async () => {
    const noExpiry = await post('/api/livestreaming/links', { camera_id: farmyard, kind: 'link' });
    expect(noExpiry.statusCode).toBe(400);
    expect(noExpiry.json().message).toBe(
      'A link to share needs an expiry: choose a date or a number of days.',
    );
    const noDomains = await post('/api/livestreaming/links', {
      camera_id: farmyard,
      kind: 'embed',
    });
    expect(noDomains.statusCode).toBe(400);
    expect(noDomains.json().message).toMatch(/at least one website domain/);
    const badDomain = await post('/api/livestreaming/links', {
      camera_id: farmyard,
      kind: 'embed',
      allowed_domains: ['my farm shop'],
    });
    expect(badDomain.statusCode).toBe(400);
    expect(badDomain.json().message).toMatch(/"my farm shop" is not a website domain/);
    const past = await post('/api/livestreaming/links', {
      camera_id: farmyard,
      kind: 'link',
      expires_on: '2001-01-01',
    });
    expect(past.statusCode).toBe(400);
    expect(past.json().message).toMatch(/expiry date has passed/);
    const tooLong = await post('/api/livestreaming/links', {
      camera_id: farmyard,
      kind: 'link',
      days: 400,
    });
    expect(tooLong.statusCode).toBe(400);
  });

  it('a viewer may see the links but not make one', async () => {
    const viewer = actors.headers.viewerOfThis;
    if (!viewer) return;
    expect((await list(viewer)).statusCode).toBe(200);
    const made = await post(
      '/api/livestreaming/links',
      { camera_id: farmyard, kind: 'link', days: 3 },
      viewer,
    );
    expect(made.statusCode).toBe(403);
  });

  it('an embed code plays on its listed site (Origin or Referer) and shows a poster elsewhere', async () => {
    const link = await createEmbed(['https://WWW.Farm-Shop.example/webcam', '*.farm-blog.example']);
    expect(link.allowedDomains).toEqual(['www.farm-shop.example', '*.farm-blog.example']);
    expect(link.embedCode).toContain(link.url);
    const token = tokenOf(link.url);
    expect(token).toMatch(/^lk_/);

    // Referer (the frame's own load) on the list: the player, with a page-load token.
    const allowed = await embedPage(token, {
      referer: 'https://www.farm-shop.example/webcam',
      'sec-fetch-dest': 'iframe',
    });
    expect(allowed.statusCode).toBe(200);
    expect(allowed.body).toContain('<video');
    expect(allowed.body).toMatch(/data-page-load="[^"]+"/);

    // Referer elsewhere, or none: the poster.
    const elsewhere = await embedPage(token, { referer: 'https://copycat.example/' });
    expect(elsewhere.statusCode).toBe(200);
    expect(elsewhere.body).toContain('This livestream is not allowed on this site.');
    expect(elsewhere.body).toContain('<svg');
    expect(elsewhere.body).not.toContain('<video');
    expect((await embedPage(token)).body).toContain('This livestream is not allowed on this site.');

    // Origin (a player calling us from another origin): on the list plays, others are refused.
    expect(
      (await livestreamUrl(token, { origin: 'https://www.farm-shop.example' })).statusCode,
    ).toBe(200);
    expect(
      (await livestreamUrl(token, { origin: 'https://news.farm-blog.example' })).statusCode,
    ).toBe(200);
    const refused = await livestreamUrl(token, { origin: 'https://copycat.example' });
    expect(refused.statusCode).toBe(403);
    expect(refused.headers['x-livestream-state']).toBe('not-allowed');
    expect(refused.body).toBe('This livestream is not allowed on this site.');
    expect(refused.headers['cache-control']).toBe('no-store');
    expect((await livestreamUrl(token)).statusCode).toBe(403);
    // Nothing names the SIM.
    for (const body of [allowed.body, elsewhere.body, refused.body])
      expect(body).not.toContain(farmyard);
  });

  it('one page-load: the embed page on an allowed site lets its own script play', async () => {
    const link = await createEmbed(['farm-shop.example']);
    const token = tokenOf(link.url);
    const ip = nextIp();
    const page = await embedPage(
      token,
      { referer: 'https://farm-shop.example/', 'sec-fetch-dest': 'iframe' },
      ip,
    );
    const load = /data-page-load="([^"]+)"/.exec(page.body)![1]!;
    const played = await context.app.inject({
      method: 'GET',
      url: `/api/livestreaming/livestream-url?camera_id=${token}&load=${encodeURIComponent(load)}`,
      remoteAddress: ip,
      headers: { ...browser, referer: `http://portal.test/embed/${token}` },
    });
    expect(played.statusCode, played.body).toBe(200);
    // Its periodic refresh (no token, no Origin from its own page) keeps playing.
    const refresh = await context.app.inject({
      method: 'GET',
      url: `/api/livestreaming/livestream-url?camera_id=${token}&refresh=1`,
      remoteAddress: ip,
      headers: browser,
    });
    expect(refresh.statusCode).toBe(200);
  });

  it('a link stops at the end of its last day; revoked says switched off; re-issue makes a new address', async () => {
    const made = await post('/api/livestreaming/links', {
      camera_id: farmyard,
      kind: 'link',
      days: 2,
      label: 'For the vet',
    });
    expect(made.statusCode, made.body).toBe(200);
    const link = made.json().link;
    expect(link.state).toBe('active');
    const token = tokenOf(link.url);
    expect((await livestreamUrl(token)).statusCode).toBe(200);
    expect((await embedPage(token)).body).toContain('<video');

    // Re-issue: the old token is switched off, the new one plays with the same settings.
    const reissued = await post('/api/livestreaming/links/reissue', {
      camera_id: farmyard,
      link_id: link.id,
    });
    expect(reissued.statusCode, reissued.body).toBe(200);
    const fresh = reissued.json().link;
    expect(fresh.label).toBe('For the vet');
    expect(fresh.expiresAt).toBe(link.expiresAt);
    expect(fresh.url).not.toBe(link.url);
    const old = await livestreamUrl(token);
    expect(old.statusCode).toBe(404);
    expect(old.headers['x-livestream-state']).toBe('revoked');
    expect(old.body).toBe('This link has been switched off.');
    expect((await embedPage(token)).body).toContain('This link has been switched off.');
    const freshToken = tokenOf(fresh.url);
    expect((await livestreamUrl(freshToken)).statusCode).toBe(200);

    // Expired: three days on.
    context.clock.advance(3 * 86_400_000);
    const expired = await livestreamUrl(freshToken);
    expect(expired.statusCode).toBe(404);
    expect(expired.headers['x-livestream-state']).toBe('expired');
    expect((await embedPage(freshToken)).body).toContain('This link has expired.');
    const reissueExpired = await post('/api/livestreaming/links/reissue', {
      camera_id: farmyard,
      link_id: fresh.id,
    });
    expect(reissueExpired.statusCode).toBe(400);

    // Revoke is recorded in the activity log.
    const embed = await createEmbed(['farm-shop.example']);
    const revoked = await post('/api/livestreaming/links/revoke', {
      camera_id: farmyard,
      link_id: embed.id,
    });
    expect(revoked.json().link.state).toBe('revoked');
    const actions = (await context.database.db.select().from(auditLog)).map((row) => row.action);
    expect(actions).toEqual(
      expect.arrayContaining([
        'livestream.link-create',
        'livestream.link-reissue',
        'livestream.link-revoke',
      ]),
    );
    const listed = (await list()).json();
    expect(listed.links.find((row: { id: string }) => row.id === link.id).state).toBe('revoked');
    expect(listed.links.find((row: { id: string }) => row.id === fresh.id).state).toBe('expired');
  });

  it("the livestream's own code plays exactly as before", async () => {
    const page = await embedPage(publicId, { referer: 'https://anywhere.example/' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<video');
    const url = await livestreamUrl(publicId, { origin: 'https://anywhere.example' });
    expect(url.statusCode).toBe(200);
    expect(url.headers['cache-control']).toBe('public, max-age=30');
  });
});

describe('views', () => {
  it('count once per viewer and day, per link and site, and never bots', async () => {
    await context.database.db.delete(livestreamLinkViews);
    await context.database.db.delete(livestreamViewerDays);
    const link = await createEmbed(['farm-shop.example', 'farm-blog.example']);
    const token = tokenOf(link.url);
    const ip = nextIp();
    const shop = { origin: 'https://farm-shop.example' };
    for (let call = 0; call < 3; call += 1) await livestreamUrl(token, shop, ip);
    await livestreamUrl(token, { ...shop, 'user-agent': `${browser['user-agent']} Edg/150` }, ip);
    await livestreamUrl(token, { origin: 'https://farm-blog.example' });
    // Bots and scripts: not counted.
    await livestreamUrl(token, { ...shop, 'user-agent': 'Mozilla/5.0 (compatible; bingbot/2.0)' });
    await livestreamUrl(token, { ...shop, 'user-agent': 'Mozilla/5.0 HeadlessChrome/120' });
    await livestreamUrl(token, { ...shop, 'accept-language': '' });
    // A refused play on another site, counted as refused.
    await livestreamUrl(token, { origin: 'https://copycat.example' });
    // The own code: its own subject.
    await livestreamUrl(publicId, { origin: 'https://farm-shop.example' });

    const rows = await context.database.db.select().from(livestreamViewerDays);
    for (const row of rows) expect(row.viewerHash).not.toContain(ip);

    const listed = (await list()).json();
    const mine = listed.links.find((row: { id: string }) => row.id === link.id);
    expect(mine.views).toBe(3);
    expect(mine.refused).toBe(1);
    const sites = listed.sites.filter((site: { linkId: string | null }) => site.linkId === link.id);
    expect(sites).toEqual(
      expect.arrayContaining([
        { linkId: link.id, siteHost: 'farm-shop.example', views: 2, refused: 0 },
        { linkId: link.id, siteHost: 'farm-blog.example', views: 1, refused: 0 },
        { linkId: link.id, siteHost: 'copycat.example', views: 0, refused: 1 },
      ]),
    );
    expect(listed.ownCode.views).toBe(1);
    const stored = await context.database.db
      .select()
      .from(livestreamLinkViews)
      .where(eq(livestreamLinkViews.subject, link.id));
    expect(stored.reduce((sum, row) => sum + row.views, 0)).toBe(3);
  });
});
