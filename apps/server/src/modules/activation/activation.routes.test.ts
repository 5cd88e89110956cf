import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createActors, type Actors } from '../../../test/helpers/authorization.ts';
import { createTestContext, nextIp, type TestContext } from '../../../test/helpers/test-app.ts';
import { testConfig } from '../../config/config.ts';
import { auditLog, billingCustomers, rateLimits, sims } from '../../db/schema.ts';
import { demoIccid, seedDemoData } from '../../db/seed/demo.ts';
import { activationLimits, codeNeighbours } from './activation-throttle.ts';
import { activationMessages } from './activation.service.ts';

let context: TestContext;
let actors: Actors;
const messages = activationMessages(testConfig().supportEmail);

/** A visitor: one client address and one wizard session, as the SPA sends them. */
function visitor(ip = nextIp(), session = `wizard-${ip.replaceAll('.', '-')}`) {
  return (url: string, payload: object) =>
    context.app.inject({
      method: 'POST',
      url,
      payload,
      remoteAddress: ip,
      headers: { 'x-activation-session': session },
    });
}

const validateCode = (activationCode: string, ip?: string, session?: string) =>
  visitor(ip, session)('/api/activation/validate-activation-code', { activationCode });

async function simRow(iccid: string) {
  const [row] = await context.database.db.select().from(sims).where(eq(sims.iccid, iccid));
  return row!;
}

beforeAll(async () => {
  context = await createTestContext();
  actors = await createActors(context, 'demo@example.com');
  await seedDemoData(context.database.db, context.clock);
  // An activation code on a live camera and a terminated one, to try codes of SIMs not for sale.
  await context.database.db
    .update(sims)
    .set({ activationCode: 'LIVE' })
    .where(eq(sims.iccid, demoIccid(101)));
  await context.database.db
    .update(sims)
    .set({ activationCode: 'DEAD' })
    .where(eq(sims.iccid, demoIccid(109)));
});
afterAll(() => context.close());

beforeEach(async () => {
  // Every test starts with empty buckets and unlocked codes; the clock moves on a little.
  await context.database.db.delete(rateLimits);
  await context.database.db.update(sims).set({ failedCodeAttempts: 0, codeLockedUntil: null });
  context.clock.advance(60_000);
});

describe('POST /api/activation/validate-activation-code', () => {
  it('returns the ICCID of a stock SIM for its 4 letters, in any case', async () => {
    const response = await validateCode('kqtx');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      success: true,
      message: 'SIM validated',
      iccid: demoIccid(901),
    });
  });

  it('refuses codes that are not 4 letters with 400', async () => {
    for (const activationCode of ['KQT', 'KQTXA', 'KQ1X', '', 'KQ X']) {
      const response = await validateCode(activationCode);
      expect(response.statusCode, activationCode).toBe(400);
      expect(response.json().message).toContain('An activation code is 4 letters');
    }
  });

  it('answers an unknown code with 404 and words the wizard shows as they are', async () => {
    const response = await validateCode('ZZZZ');
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ code: 'NOT_FOUND', message: messages.unknownCode });
  });

  it('says clearly when the SIM is already active or terminated', async () => {
    const live = await validateCode('LIVE');
    expect(live.statusCode).toBe(409);
    expect(live.json().message).toBe(messages.alreadyActive);
    const dead = await validateCode('DEAD');
    expect(dead.statusCode).toBe(409);
    expect(dead.json().message).toBe(messages.terminated);
    expect(messages.terminated).toContain(testConfig().supportEmail);
  });

  it('refuses a barred stock SIM', async () => {
    await context.database.db
      .update(sims)
      .set({ isBarred: true })
      .where(eq(sims.iccid, demoIccid(906)));
    const response = await validateCode('TMYF');
    expect(response.statusCode).toBe(409);
    expect(response.json().message).toBe(messages.barred);
    await context.database.db
      .update(sims)
      .set({ isBarred: false })
      .where(eq(sims.iccid, demoIccid(906)));
  });
});

describe('guessing limits on 4-letter codes', () => {
  it(`allows ${activationLimits.codeLookupsPerSession.limit} look-ups per session in 15 minutes, then 429 with Retry-After`, async () => {
    const ip = nextIp();
    for (let attempt = 0; attempt < activationLimits.codeLookupsPerSession.limit; attempt += 1) {
      expect((await validateCode('KQTX', ip, 'session-one')).statusCode).toBe(200);
    }
    const refused = await validateCode('KQTX', ip, 'session-one');
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.json().message).toMatch(
      /^Too many activation code attempts\. Please try again in \d+ minutes\./,
    );
    expect(refused.json().message).toContain('20-digit SIM number');

    // The window passes and the session may try again.
    context.clock.advance(activationLimits.codeLookupsPerSession.windowSeconds * 1000);
    expect((await validateCode('KQTX', ip, 'session-one')).statusCode).toBe(200);
  });

  it('limits an IP however many wizard sessions it makes up', async () => {
    const ip = nextIp();
    for (let attempt = 0; attempt < activationLimits.codeLookupsPerIp.limit; attempt += 1) {
      expect((await validateCode('ZZZZ', ip, `made-up-session-${attempt}`)).statusCode).toBe(404);
    }
    const refused = await validateCode('ZZZZ', ip, 'yet-another-session');
    expect(refused.statusCode).toBe(429);
    // Another visitor is not affected.
    expect((await validateCode('KQTX')).statusCode).toBe(200);
  });

  it(`allows ${activationLimits.codeLookupsGlobal.limit} look-ups a minute from everyone together`, async () => {
    for (let attempt = 0; attempt < activationLimits.codeLookupsGlobal.limit; attempt += 1) {
      expect((await validateCode('ZZZZ')).statusCode).toBe(404);
    }
    const refused = await validateCode('KQTX');
    expect(refused.statusCode).toBe(429);
    expect(refused.json().message).toMatch(/being checked too often right now/);
    // The SIM-number method has its own budget: the wizard's way out still works.
    const byIccid = await visitor()('/api/activation/validate-iccid', { iccid: demoIccid(901) });
    expect(byIccid.statusCode).toBe(200);
    context.clock.advance(60_000);
    expect((await validateCode('KQTX')).statusCode).toBe(200);
  });

  it('locks a stock SIM’s code after 10 wrong guesses one letter away, and keeps it locked while tried', async () => {
    const neighbours = codeNeighbours('BWLM');
    expect(neighbours).toHaveLength(100);
    expect(new Set(neighbours).size).toBe(100);
    expect(neighbours).not.toContain('BWLM');
    // A guess far from every code counts against none.
    await validateCode('ZZZZ');
    expect((await simRow(demoIccid(902))).failedCodeAttempts).toBe(0);

    for (let attempt = 0; attempt < activationLimits.codeLock.nearMissesToLock - 1; attempt += 1) {
      expect((await validateCode(neighbours[attempt * 7]!)).statusCode).toBe(404);
    }
    expect((await simRow(demoIccid(902))).failedCodeAttempts).toBe(9);
    expect((await simRow(demoIccid(902))).codeLockedUntil).toBeNull();
    expect((await validateCode('BWLM')).statusCode).toBe(200);

    expect((await validateCode(neighbours[99]!)).statusCode).toBe(404);
    const locked = await simRow(demoIccid(902));
    expect(locked.codeLockedUntil?.getTime()).toBe(
      context.clock.now().getTime() + activationLimits.codeLock.lockSeconds * 1000,
    );

    const refused = await validateCode('BWLM');
    expect(refused.statusCode).toBe(423);
    expect(refused.json()).toEqual({ code: 'LOCKED', message: messages.codeLocked });
    // Other SIMs' codes are not affected, and the SIM number still works for the owner.
    expect((await validateCode('KQTX')).statusCode).toBe(200);
    expect(
      (await visitor()('/api/activation/validate-iccid', { iccid: demoIccid(902) })).statusCode,
    ).toBe(200);

    // Trying the locked code pushes the end of the lock on.
    context.clock.advance(23 * 3600_000);
    expect((await validateCode('BWLM')).statusCode).toBe(423);
    context.clock.advance(2 * 3600_000);
    expect((await validateCode('BWLM')).statusCode).toBe(423);
    context.clock.advance(activationLimits.codeLock.lockSeconds * 1000 + 1000);
    expect((await validateCode('BWLM')).statusCode).toBe(200);
  });

  it('forgets near misses older than the window', async () => {
    const neighbours = codeNeighbours('RHZD');
    for (let attempt = 0; attempt < 9; attempt += 1) await validateCode(neighbours[attempt]!);
    context.clock.advance(activationLimits.codeLock.windowSeconds * 1000 + 1000);
    await validateCode(neighbours[50]!);
    expect((await simRow(demoIccid(903))).failedCodeAttempts).toBe(1);
    expect((await simRow(demoIccid(903))).codeLockedUntil).toBeNull();
  });

  it('cannot find a code by blind guessing within the limits: a run over the space is stopped early', async () => {
    // One client going through the space in order gets 20 answers, then only 429s.
    const ip = nextIp();
    const statuses: number[] = [];
    for (let index = 0; index < 30; index += 1) {
      const code = `PJ${String.fromCharCode(65 + Math.floor(index / 26))}${String.fromCharCode(65 + (index % 26))}`;
      statuses.push((await validateCode(code, ip, `guessing-session-${index}`)).statusCode);
    }
    expect(statuses.filter((status) => status === 429)).toHaveLength(
      30 - activationLimits.codeLookupsPerIp.limit,
    );
    expect(statuses).not.toContain(200);
  });
});

describe('POST /api/activation/validate-iccid and /api/activation/validate', () => {
  for (const path of ['/api/activation/validate-iccid', '/api/activation/validate']) {
    it(`${path}: a stock SIM passes; unknown, live, terminated and malformed numbers do not`, async () => {
      const call = visitor();
      expect((await call(path, { iccid: demoIccid(904) })).json()).toEqual({
        success: true,
        message: 'SIM validated',
        iccid: demoIccid(904),
      });
      const unknown = await call(path, { iccid: '8944110000000999999' });
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json().message).toBe(messages.unknownIccid);
      expect((await call(path, { iccid: demoIccid(101) })).json().message).toBe(
        messages.alreadyActive,
      );
      expect((await call(path, { iccid: demoIccid(109) })).json().message).toBe(
        messages.terminated,
      );
      for (const iccid of ['894411000000000901', '894411000000000901712', '89441100000000090I7']) {
        const malformed = await call(path, { iccid });
        expect(malformed.statusCode, iccid).toBe(400);
        expect(malformed.json().message).toContain('An ICCID is 19 or 20 digits');
      }
    });
  }

  it('limits SIM-number look-ups per session and per IP', async () => {
    const ip = nextIp();
    for (let attempt = 0; attempt < activationLimits.simLookupsPerSession.limit; attempt += 1) {
      await visitor(ip, 'same-session')('/api/activation/validate-iccid', {
        iccid: demoIccid(904),
      });
    }
    const refused = await visitor(ip, 'same-session')('/api/activation/validate-iccid', {
      iccid: demoIccid(904),
    });
    expect(refused.statusCode).toBe(429);
    expect(refused.json().message).toMatch(
      /^Too many SIM checks\. Please try again in \d+ minutes\.$/,
    );
    for (
      let attempt = activationLimits.simLookupsPerSession.limit;
      attempt < activationLimits.simLookupsPerIp.limit;
      attempt += 1
    ) {
      await visitor(ip, `other-${attempt}`)('/api/activation/validate', { iccid: demoIccid(904) });
    }
    expect(
      (await visitor(ip, 'fresh')('/api/activation/validate', { iccid: demoIccid(904) }))
        .statusCode,
    ).toBe(429);
  });

  it('keys a signed-in customer on their session, not their IP', async () => {
    actors = await createActors(context);
    const ip = nextIp();
    for (let attempt = 0; attempt < activationLimits.codeLookupsPerSession.limit; attempt += 1) {
      await context.app.inject({
        method: 'POST',
        url: '/api/activation/validate-activation-code',
        payload: { activationCode: 'KQTX' },
        remoteAddress: ip,
        headers: actors.headers.owner,
      });
    }
    const refused = await context.app.inject({
      method: 'POST',
      url: '/api/activation/validate-activation-code',
      payload: { activationCode: 'KQTX' },
      remoteAddress: nextIp(),
      headers: { ...actors.headers.owner, 'x-activation-session': 'a-new-wizard-tab' },
    });
    expect(refused.statusCode).toBe(429);
  });
});

describe('POST /api/activation/check-solar-sim', () => {
  it('names our own table for the region and SIM kind', async () => {
    const call = visitor();
    expect(
      (
        await call('/api/activation/check-solar-sim', { iccid: demoIccid(901), location: 'uk' })
      ).json(),
    ).toEqual({
      is_solar_sim: false,
      pricing_table_id: 'local_uk',
    });
    expect(
      (
        await call('/api/activation/check-solar-sim', { iccid: demoIccid(901), location: 'ie' })
      ).json(),
    ).toEqual({
      is_solar_sim: false,
      pricing_table_id: 'local_ie',
    });
    expect(
      (
        await call('/api/activation/check-solar-sim', { iccid: demoIccid(905), location: 'ie' })
      ).json(),
    ).toEqual({
      is_solar_sim: true,
      pricing_table_id: 'local_ie_solar',
    });
    // The region defaults to uk (spec §5).
    expect(
      (await call('/api/activation/check-solar-sim', { iccid: demoIccid(905) })).json(),
    ).toEqual({
      is_solar_sim: true,
      pricing_table_id: 'local_uk_solar',
    });
  });

  it('refuses other regions and SIMs not for sale', async () => {
    const call = visitor();
    const region = await call('/api/activation/check-solar-sim', {
      iccid: demoIccid(901),
      location: 'fr',
    });
    expect(region.statusCode).toBe(400);
    expect(region.json().message).toContain('Region must be uk or ie');
    const live = await call('/api/activation/check-solar-sim', {
      iccid: demoIccid(101),
      location: 'uk',
    });
    expect(live.statusCode).toBe(409);
  });
});

describe('GET /api/activation/config and /api/activation/pricing-tables/:id', () => {
  it('describes our own tables with the spec’s fallbacks', async () => {
    const response = await context.app.inject({ method: 'GET', url: '/api/activation/config' });
    // No third-party pricing table: nothing is added to the strict policy.
    expect(String(response.headers['content-security-policy'])).toContain("script-src 'self';");
    expect(response.json()).toEqual({
      provider: 'local',
      publishable_key: null,
      fallback_pricing_tables: { uk: 'local_uk', other: 'local_ie' },
      support_email: testConfig().supportEmail,
      setup_guide_url: 'https://www.example.com/setup-guide',
    });
  });

  it('lists a region’s plans in its currency, Light to Heavy, monthly before annual', async () => {
    const uk = (
      await context.app.inject({ method: 'GET', url: '/api/activation/pricing-tables/local_uk' })
    ).json();
    expect(uk).toMatchObject({ id: 'local_uk', region: 'uk', is_solar: false, currency: 'gbp' });
    expect(uk.plans.map((plan: { price_id: string }) => plan.price_id)).toEqual([
      'price_light_month_uk',
      'price_light_year_uk',
      'price_standard_month_uk',
      'price_standard_year_uk',
      'price_heavy_month_uk',
      'price_heavy_year_uk',
    ]);
    expect(uk.plans[4]).toMatchObject({
      product_name: 'Heavy Streaming',
      unit_amount: 3500,
      currency: 'gbp',
      interval: 'month',
      metadata: { Hours: '120', Provider: 'multi-network' },
    });
    const solar = (
      await context.app.inject({
        method: 'GET',
        url: '/api/activation/pricing-tables/local_ie_solar',
      })
    ).json();
    expect(solar).toMatchObject({ region: 'ie', is_solar: true, currency: 'eur' });
    expect(
      solar.plans.every(
        (plan: { price_id: string; currency: string }) =>
          plan.price_id.endsWith('_ie_solar') && plan.currency === 'eur',
      ),
    ).toBe(true);
  });

  it('answers 404 for an unknown table and 400 for a malformed id', async () => {
    expect(
      (await context.app.inject({ method: 'GET', url: '/api/activation/pricing-tables/local_fr' }))
        .statusCode,
    ).toBe(404);
    expect(
      (await context.app.inject({ method: 'GET', url: '/api/activation/pricing-tables/bad%20id' }))
        .statusCode,
    ).toBe(400);
  });
});

describe('POST /api/activation/log-price-table', () => {
  it('records the table a visitor saw, without the secret itself', async () => {
    const response = await visitor()('/api/activation/log-price-table', {
      'client-reference-id': demoIccid(901),
      'customer-email': 'New.Farmer@Example.com',
      'customer-session-client-secret': 'cuss_secret_abc',
      pricing_table_id: 'local_uk',
    });
    expect(response.json()).toEqual({ success: true });
    const [entry] = await context.database.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.action, 'activation.pricing_table_shown'));
    expect(entry).toMatchObject({
      subjectType: 'sim',
      subjectId: demoIccid(901),
      details: {
        email: 'new.farmer@example.com',
        pricingTableId: 'local_uk',
        hasCustomerSession: true,
      },
    });
    expect(JSON.stringify(entry)).not.toContain('cuss_secret_abc');
  });

  it('refuses a malformed e-mail', async () => {
    const response = await visitor()('/api/activation/log-price-table', {
      'client-reference-id': demoIccid(901),
      'customer-email': 'not-an-email',
    });
    expect(response.statusCode).toBe(400);
  });
});

describe('POST /api/activation/billing-customer', () => {
  // Earlier tests moved the clock by days; sign everyone in again.
  beforeAll(async () => {
    actors = await createActors(context);
  });
  const call = (headers: Record<string, string>) =>
    context.app.inject({
      method: 'POST',
      url: '/api/activation/billing-customer',
      payload: { iccid: demoIccid(906), location: 'ie' },
      headers,
      remoteAddress: nextIp(),
    });

  it('is for signed-in customers (and staff inside a customer’s portal) only', async () => {
    expect((await call(actors.headers.anonymous)).statusCode).toBe(401);
    expect((await call(actors.headers.teamUnscoped)).statusCode).toBe(403);
    expect((await call(actors.headers.adminUnscoped)).statusCode).toBe(403);
    for (const headers of [actors.headers.owner, actors.headers.team, actors.headers.admin]) {
      expect((await call(headers)).statusCode).toBe(200);
    }
  });

  it('makes one billing account per customer and SIM, in the region’s currency', async () => {
    const first = (await call(actors.headers.owner)).json<{ customer_id: string }>();
    const again = (await call(actors.headers.owner)).json<{ customer_id: string }>();
    expect(again.customer_id).toBe(first.customer_id);
    const other = (await call(actors.headers.otherCustomer)).json<{ customer_id: string }>();
    expect(other.customer_id).not.toBe(first.customer_id);
    const [account] = await context.database.db
      .select()
      .from(billingCustomers)
      .where(eq(billingCustomers.id, first.customer_id));
    expect(account).toMatchObject({ customerId: actors.ownerId, currency: 'eur' });
    expect(account!.email).toMatch(/^owner-/);

    // The customer session secret for it comes from the billing endpoint (issue 4), as the spec says.
    const secret = await context.app.inject({
      method: 'POST',
      url: '/api/billing/create-customer-secret',
      payload: { customerId: first.customer_id },
      headers: actors.headers.owner,
    });
    expect(secret.statusCode).toBe(200);
    expect(secret.json().secret).toMatch(/^cuss_secret_/);
  });

  it('refuses a SIM that is not for sale', async () => {
    const response = await context.app.inject({
      method: 'POST',
      url: '/api/activation/billing-customer',
      payload: { iccid: demoIccid(101) },
      headers: actors.headers.owner,
    });
    expect(response.statusCode).toBe(409);
  });
});
