/**
 * Public livestream links (docs/decisions/096, 100): made, revoked and re-issued by the owner; a
 * link plays only for a page load its embed page proved (an embed code: on a listed site), every
 * request of it included, whatever Origin a request names; a link stops at its expiry or
 * revocation, its clip addresses within five minutes; the livestream's own code plays as before;
 * views count once per network and day, sites only from proven page loads, bots left out.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
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
import { newPublicId } from './livestream-setup.service.ts';
import {
  frameAncestorSources,
  isBrowserRequest,
  isSiteAllowed,
  normaliseDomain,
  viewerDayHash,
} from './public-links.rules.ts';
import { pageLoadTokenSeconds } from '../public-playback/page-load-token.ts';

let context: TestContext;
let actors: Actors;
let publicId: string;
const farmyard = demoIccid(103); // Heavy monthly, active
const browser = {
  'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/156 Safari/537.36',
  'accept-language': 'en-GB,en;q=0.9',
};

let dataDir: string;

beforeAll(async () => {
  // A folder of its own: the clip is a real file, so its address can be played.
  dataDir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'farmcam-links-'));
  context = await createTestContext({ dataDir });
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
  const storageKey = `livestreams/${row!.id}/first.mp4`;
  // Where the local file storage keeps it (DATA_DIR/clips, filesystem-storage.ts).
  const clipFile = path.join(dataDir, 'clips', ...storageKey.split('/'));
  await fs.promises.mkdir(path.dirname(clipFile), { recursive: true });
  await fs.promises.writeFile(clipFile, Buffer.from('\0\0\0 ftypisom clip '.repeat(50)));
  await context.database.db.insert(clips).values({
    livestreamId: row!.id,
    storageKey,
    status: 'ready',
    durationSeconds: 15,
    recordedAt: context.clock.now(),
  });
});
afterAll(async () => {
  await context.close();
  await fs.promises.rm(dataDir, { recursive: true, force: true });
});
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

/** The headers of a frame's own load inside a page on `site`. */
const framedOn = (site: string) => ({
  referer: `https://${site}/webcam`,
  'sec-fetch-dest': 'iframe',
});

/** The page-load token the embed page gave its player script. */
const pageLoadOf = (html: string) => /data-page-load="([^"]+)"/.exec(html)?.[1];

/** The address a refused poster's script reports the try to. */
const refusedReportOf = (html: string) =>
  /data-refused-url="([^"]+)"/.exec(html)![1]!.replaceAll('&#38;', '&');

/** The player's request, with its page-load token (or a renewal), from `ip`. */
function withProof(
  id: string,
  load: string,
  options: { ip: string; refresh?: boolean; headers?: Record<string, string> },
) {
  const query = `${options.refresh ? '&refresh=1' : ''}${load ? `&load=${encodeURIComponent(load)}` : ''}`;
  return livestreamUrl(`${id}${query}`, options.headers ?? {}, options.ip);
}

/** A visitor's page load (inside a page on `site`, or opened on its own) and its first request. */
async function play(
  id: string,
  site: string | null = null,
  ip = nextIp(),
  headers: Record<string, string> = {},
) {
  const page = await embedPage(id, { ...(site ? framedOn(site) : {}), ...headers }, ip);
  return withProof(id, pageLoadOf(page.body) ?? '', { ip, headers });
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
    // Told to browsers the same way: http or https, any port unless listed, wildcards as listed.
    expect(frameAncestorSources(['www.farm.example', '*.farm.example', 'farm.example:8080'])).toBe(
      'http://www.farm.example:* https://www.farm.example:* http://*.farm.example:* https://*.farm.example:* http://farm.example:8080 https://farm.example:8080',
    );
  });

  it('hashes a viewer by network and day under a key, whatever the browser', () => {
    const first = viewerDayHash('key', '203.0.113.7', '2026-03-10');
    expect(first).toHaveLength(32);
    expect(viewerDayHash('key', '203.0.113.7', '2026-03-10')).toBe(first);
    expect(viewerDayHash('key', '203.0.113.7', '2026-03-11')).not.toBe(first);
    expect(viewerDayHash('other key', '203.0.113.7', '2026-03-10')).not.toBe(first);
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

  it('an embed code plays only for a page load proven on a listed site, and shows a poster elsewhere', async () => {
    const link = await createEmbed(['https://WWW.Farm-Shop.example/webcam', '*.farm-blog.example']);
    expect(link.allowedDomains).toEqual(['www.farm-shop.example', '*.farm-blog.example']);
    expect(link.embedCode).toContain(link.url);
    const token = tokenOf(link.url);
    expect(token).toMatch(/^lk_/);

    // Referer (the frame's own load) on the list: the player, with a page-load token, and a
    // policy that lets only the listed sites frame it (any port, http or https, as matched).
    const ip = nextIp();
    const allowed = await embedPage(token, framedOn('www.farm-shop.example'), ip);
    expect(allowed.statusCode).toBe(200);
    expect(allowed.body).toContain('<video');
    expect(allowed.headers['content-security-policy']).toContain(
      'frame-ancestors http://www.farm-shop.example:* https://www.farm-shop.example:* http://*.farm-blog.example:* https://*.farm-blog.example:*;',
    );
    const load = pageLoadOf(allowed.body)!;
    const played = await withProof(token, load, { ip });
    expect(played.statusCode, played.body).toBe(200);
    expect(played.headers['cache-control']).toBe('no-store');
    expect(played.headers['access-control-allow-origin']).toBeUndefined();
    expect(played.headers['x-page-load']).toBeDefined();
    // A subdomain of the wildcard plays too.
    const blogIp = nextIp();
    const blog = await embedPage(token, framedOn('news.farm-blog.example'), blogIp);
    expect((await withProof(token, pageLoadOf(blog.body)!, { ip: blogIp })).statusCode).toBe(200);

    // Referer elsewhere, or none: the poster, framable anywhere so the visitor learns why.
    const elsewhere = await embedPage(token, framedOn('copycat.example'));
    expect(elsewhere.statusCode).toBe(200);
    expect(elsewhere.body).toContain('This livestream is not allowed on this site.');
    expect(elsewhere.body).toContain('<svg');
    expect(elsewhere.body).not.toContain('<video');
    expect(elsewhere.headers['content-security-policy']).toContain('frame-ancestors *;');
    expect((await embedPage(token)).body).toContain('This livestream is not allowed on this site.');
    expect(
      (await embedPage(token, { referer: 'https://bare.farm-blog.example.evil.example/' })).body,
    ).toContain('This livestream is not allowed on this site.');

    // Nothing names the SIM.
    for (const body of [allowed.body, elsewhere.body, played.body])
      expect(body).not.toContain(farmyard);
  });

  it('refuses every request without the proof, whatever Origin it names: forged, null, none, file, data', async () => {
    const link = await createEmbed(['www.farm-shop.example']);
    const token = tokenOf(link.url);
    const origins: Record<string, string>[] = [
      { origin: 'https://www.farm-shop.example' }, // forged: the listed site itself
      { origin: 'https://www.farm-shop.example', referer: 'https://www.farm-shop.example/' },
      { origin: 'null' }, // a sandboxed or data: frame on any page
      {}, // no Origin at all
      { origin: 'file://' },
      { origin: 'data:' },
      { origin: 'chrome-extension://abcdef' },
    ];
    for (const headers of origins) {
      for (const query of ['', '&refresh=1']) {
        const refused = await livestreamUrl(`${token}${query}`, headers);
        expect(refused.statusCode, JSON.stringify(headers)).toBe(403);
        expect(refused.headers['x-livestream-state']).toBe('not-allowed');
        expect(refused.body).toBe('This livestream is not allowed on this site.');
        expect(refused.headers['cache-control']).toBe('no-store');
        expect(refused.headers['access-control-allow-origin']).toBeUndefined();
      }
    }
    // Nor does a preflight let another page read it.
    const preflight = await context.app.inject({
      method: 'OPTIONS',
      url: `/api/livestreaming/livestream-url?camera_id=${token}`,
      headers: { origin: 'null', 'access-control-request-method': 'GET' },
    });
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('refuses a token from another site, another link, another network, made up, or lapsed', async () => {
    const link = await createEmbed(['www.farm-shop.example']);
    const other = await createEmbed(['www.farm-shop.example']);
    const token = tokenOf(link.url);
    const ip = nextIp();
    /** The status and state of the answer to this token: a refusal never renews it. */
    const refusedWith = async (load: string, from = ip) => {
      const answer = await withProof(token, load, { ip: from });
      expect(answer.headers['x-page-load']).toBeUndefined();
      return `${answer.statusCode} ${answer.headers['x-livestream-state']}`;
    };

    // The token of the poster a copycat site got (it names that site): never plays.
    const copycat = await embedPage(token, framedOn('copycat.example'), ip);
    const copycatLoad = /load=([^"&]+)/.exec(copycat.body)![1]!;
    expect(await refusedWith(decodeURIComponent(copycatLoad))).toBe('403 not-allowed');
    // A genuine token with its site swapped for the listed one.
    const [issuedAt, , tag, signature] = decodeURIComponent(copycatLoad).split('.');
    const listed = Buffer.from('www.farm-shop.example').toString('base64url');
    expect(await refusedWith(`${issuedAt}.${listed}.${tag}.${signature}`)).toBe('403 not-allowed');
    // Another link's genuine token for the listed site.
    const otherPage = await embedPage(tokenOf(other.url), framedOn('www.farm-shop.example'), ip);
    expect(await refusedWith(pageLoadOf(otherPage.body)!)).toBe('403 not-allowed');
    // This link's genuine token, replayed from another network (another IPv4 address): it
    // proves nothing there (a visitor who really moved network is asked to reload the page).
    const page = await embedPage(token, framedOn('www.farm-shop.example'), ip);
    const load = pageLoadOf(page.body)!;
    expect(await refusedWith(load, nextIp())).toBe('403 reload');
    // Made up, or not a token at all.
    expect(await refusedWith(`${issuedAt}.${listed}.${tag}.AAAAAAAAAAAAAAAAAAAAAA`)).toBe(
      '403 not-allowed',
    );
    expect(await refusedWith('not-a-token')).toBe('403 not-allowed');
    // The genuine one from its own network plays; after half an hour without renewal it lapses.
    expect((await withProof(token, load, { ip })).statusCode).toBe(200);
    context.clock.advance((pageLoadTokenSeconds + 1) * 1000);
    const lapsed = await withProof(token, load, { ip, refresh: true });
    expect(lapsed.statusCode).toBe(403);
    expect(lapsed.headers['x-livestream-state']).toBe('reload');
    expect(lapsed.body).toBe('Reload the page to keep watching this livestream.');
    expect(lapsed.headers['cache-control']).toBe('no-store');
  });

  it("keeps a page playing for hours with each answer's renewed token, and only with it", async () => {
    const link = await createEmbed(['www.farm-shop.example']);
    const token = tokenOf(link.url);
    const ip = '2001:db8:51::10';
    const page = await embedPage(token, framedOn('www.farm-shop.example'), ip);
    let load = pageLoadOf(page.body)!;
    const first = await withProof(token, load, { ip });
    expect(first.statusCode).toBe(200);
    // The player's minute checks for two hours, each with the newest token, from addresses of
    // the same IPv6 /64 (privacy addresses change): every one plays.
    for (let minute = 1; minute <= 120; minute += 1) {
      context.clock.advance(60_000);
      const check = await withProof(token, load, {
        ip: `2001:db8:51::${minute.toString(16)}`,
        refresh: true,
      });
      expect(check.statusCode, `minute ${minute}`).toBe(200);
      load = check.headers['x-page-load'] as string;
      expect(load).toBeTruthy();
    }
    // The same check with no token, or from another /64, is refused.
    expect((await withProof(token, '', { ip, refresh: true })).statusCode).toBe(403);
    const moved = await withProof(token, load, { ip: '2001:db8:52::1', refresh: true });
    expect(moved.statusCode).toBe(403);
    expect(moved.headers['x-page-load']).toBeUndefined();
  });

  it('a revoked link stops: its answers are no-store, and its clip addresses die within five minutes', async () => {
    const link = await createEmbed(['www.farm-shop.example']);
    const token = tokenOf(link.url);
    const ip = nextIp();
    const page = await embedPage(token, framedOn('www.farm-shop.example'), ip);
    const played = await withProof(token, pageLoadOf(page.body)!, { ip });
    expect(played.statusCode).toBe(200);
    const clipUrl = new URL(played.body);
    const expires = Number(clipUrl.searchParams.get('expires'));
    const now = context.clock.now().getTime() / 1000;
    expect(expires - now).toBeLessThanOrEqual(300);
    expect(expires - now).toBeGreaterThanOrEqual(240);
    const media = await context.app.inject({
      method: 'GET',
      url: `${clipUrl.pathname}${clipUrl.search}`,
    });
    expect(media.statusCode).toBe(200);
    expect(media.headers['cache-control']).toMatch(/^private, max-age=\d+$/);
    expect(
      Number(/max-age=(\d+)/.exec(String(media.headers['cache-control']))![1]),
    ).toBeLessThanOrEqual(300);

    const revoked = await post('/api/livestreaming/links/revoke', {
      camera_id: farmyard,
      link_id: link.id,
    });
    expect(revoked.statusCode).toBe(200);
    const check = await withProof(token, played.headers['x-page-load'] as string, {
      ip,
      refresh: true,
    });
    expect(check.statusCode).toBe(404);
    expect(check.headers['x-livestream-state']).toBe('revoked');
    expect(check.headers['cache-control']).toBe('no-store');
    // The address handed out before plays until it expires, five minutes at most, then not.
    context.clock.advance(300_000);
    const late = await context.app.inject({
      method: 'GET',
      url: `${clipUrl.pathname}${clipUrl.search}`,
    });
    expect(late.statusCode).toBe(403);
    expect(late.headers['cache-control']).toBe('no-store');
    // Stripping `cache=private` to be served `public, immutable` breaks the signature.
    const stripped = clipUrl.search.replace('&cache=private', '');
    const tampered = await context.app.inject({
      method: 'GET',
      url: `${clipUrl.pathname}${stripped}`,
    });
    expect(tampered.statusCode).toBe(403);
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
    // Opened on its own (no website): the page plays, with the proof of its load.
    expect((await play(token)).statusCode).toBe(200);
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
    for (const old of [await livestreamUrl(token), await play(token)]) {
      expect(old.statusCode).toBe(404);
      expect(old.headers['x-livestream-state']).toBe('revoked');
      expect(old.headers['cache-control']).toBe('no-store');
      // A request that proves no page load learns nothing about the camera (decision 120).
      expect(old.body).toBe('This link has been switched off.');
      expect(old.headers['x-camera-name']).toBeUndefined();
      // Final: waiting changes nothing, so the player is not told to ask again.
      expect(old.headers['retry-after']).toBeUndefined();
    }
    // The page opened from the shared link names the camera the viewer was shown.
    expect((await embedPage(token)).body).toContain(
      'This link to Farmyard has been switched off. Ask the farm for a new one.',
    );
    const freshToken = tokenOf(fresh.url);
    expect((await play(freshToken)).statusCode).toBe(200);
    // A link to share plays only through its page too.
    expect((await livestreamUrl(freshToken)).statusCode).toBe(403);

    // Expired: three days on.
    context.clock.advance(3 * 86_400_000);
    const expired = await play(freshToken);
    expect(expired.statusCode).toBe(404);
    expect(expired.headers['x-livestream-state']).toBe('expired');
    expect(expired.headers['cache-control']).toBe('no-store');
    expect((await embedPage(freshToken)).body).toContain(
      'This link to Farmyard has expired. Ask the farm for a new one.',
    );
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
    expect(url.headers['access-control-allow-origin']).toBe('*');
    expect((await livestreamUrl(publicId, { origin: 'null' })).statusCode).toBe(200);
    expect((await livestreamUrl(publicId)).statusCode).toBe(200);
    // Its clip addresses live five minutes too, and are not served `public, immutable`.
    const clipUrl = new URL(url.body);
    const expires = Number(clipUrl.searchParams.get('expires'));
    expect(expires * 1000 - context.clock.now().getTime()).toBeLessThanOrEqual(300_000);
    const media = await context.app.inject({
      method: 'GET',
      url: `${clipUrl.pathname}${clipUrl.search}`,
    });
    expect(media.headers['cache-control']).not.toContain('immutable');
    expect(media.headers['cache-control']).toMatch(/^private, /);
  });
});

describe('views', () => {
  it('count once per network and day, per link, sites only from proven page loads, never bots', async () => {
    await context.database.db.delete(livestreamLinkViews);
    await context.database.db.delete(livestreamViewerDays);
    const link = await createEmbed(['farm-shop.example', 'farm-blog.example']);
    const token = tokenOf(link.url);
    const ip = nextIp();
    // One network: three page loads on the shop, then twenty browsers' User-Agents.
    for (let call = 0; call < 3; call += 1) await play(token, 'farm-shop.example', ip);
    for (let agent = 0; agent < 20; agent += 1) {
      await play(token, 'farm-shop.example', ip, {
        'user-agent': `Mozilla/5.0 (Macintosh; Intel Mac OS X 14_${agent}) Safari/605.1.15`,
      });
    }
    // Its second site the same day: still the one viewer it already is.
    await play(token, 'farm-blog.example', ip);
    // Another network on the blog.
    await play(token, 'farm-blog.example');
    // Bots and scripts: not counted.
    await play(token, 'farm-shop.example', nextIp(), {
      'user-agent': 'Mozilla/5.0 (compatible; bingbot/2.0)',
    });
    await play(token, 'farm-shop.example', nextIp(), {
      'user-agent': 'Mozilla/5.0 HeadlessChrome/120',
    });
    await play(token, 'farm-shop.example', nextIp(), { 'accept-language': '' });
    // A page on another site: the poster's report counts a refused try for that site, once per
    // network however often it reloads.
    const copycatIp = nextIp();
    for (let reload = 0; reload < 3; reload += 1) {
      const poster = await embedPage(token, framedOn('copycat.example'), copycatIp);
      const report = refusedReportOf(poster.body);
      const answer = await context.app.inject({
        method: 'GET',
        url: report,
        remoteAddress: copycatIp,
        headers: browser,
      });
      expect(answer.statusCode).toBe(403);
    }
    // Forged Origins without a page load: refused, and named as no site ("direct"), never as
    // the site the header claims.
    for (const origin of ['https://made-up.example', 'https://farm-shop.example', 'null']) {
      await livestreamUrl(token, { origin });
    }
    // The own code, with an Origin only: its own subject, no site.
    await livestreamUrl(publicId, { origin: 'https://farm-shop.example' });

    const listed = (await list()).json();
    const mine = listed.links.find((row: { id: string }) => row.id === link.id);
    expect(mine.views).toBe(2);
    expect(mine.refused).toBe(4);
    const sites = listed.sites.filter((site: { linkId: string | null }) => site.linkId === link.id);
    expect(sites, JSON.stringify(sites)).toHaveLength(4);
    expect(sites).toEqual(
      expect.arrayContaining([
        { linkId: link.id, siteHost: 'farm-shop.example', views: 1, refused: 0 },
        { linkId: link.id, siteHost: 'farm-blog.example', views: 1, refused: 0 },
        { linkId: link.id, siteHost: 'copycat.example', views: 0, refused: 1 },
        { linkId: link.id, siteHost: 'direct', views: 0, refused: 3 },
      ]),
    );
    expect(sites.map((site: { siteHost: string }) => site.siteHost)).not.toContain(
      'made-up.example',
    );
    expect(listed.ownCode.views).toBe(1);
    expect(listed.sites.filter((site: { linkId: string | null }) => site.linkId === null)).toEqual([
      { linkId: null, siteHost: 'direct', views: 1, refused: 0 },
    ]);
    // What is stored: keyed hashes, never an address.
    const rows = await context.database.db.select().from(livestreamViewerDays);
    for (const row of rows) {
      expect(row.viewerHash).toMatch(/^[A-Za-z0-9_-]{32}$/);
      expect(row.viewerHash).not.toContain(ip);
    }
  });
});
