import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createActors, type Actors } from '../../../test/helpers/authorization.ts';
import { createTestContext, nextIp, type TestContext } from '../../../test/helpers/test-app.ts';
import { testConfig } from '../../config/config.ts';
import { auditLog, billingCustomers, rateLimits, sims } from '../../db/schema.ts';
import { demoIccid, seedDemoData, demoStockIccid } from '../../seed/demo.ts';
import { activationLimits } from './activation-throttle.ts';
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
  // Every test starts with empty buckets; the clock moves on a little.
  await context.database.db.delete(rateLimits);
  context.clock.advance(60_000);
});

const codeLimits = activationLimits.code;
const simLimits = activationLimits.simNumber;

describe('POST /api/activation/validate-activation-code', () => {
  it('returns the ICCID of a stock SIM for its 4 letters, in any case', async () => {
    const response = await validateCode('kqtx');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      success: true,
      message: 'SIM validated',
      iccid: demoStockIccid('KQTX'),
    });
  });

  it('refuses codes that are not 4 letters with 400', async () => {
    for (const activationCode of ['KQT', 'KQTXA', 'KQ1X', '', 'KQ X']) {
      const response = await validateCode(activationCode);
      expect(response.statusCode, activationCode).toBe(400);
      expect(response.json().message).toContain('An activation code is 4 letters');
    }
  });

  it('answers unknown, live, terminated, barred and bought SIMs alike: no existence oracle', async () => {
    await context.database.db
      .update(sims)
      .set({ isBarred: true })
      .where(eq(sims.iccid, demoStockIccid('TMYF')));
    const answers = [];
    for (const code of ['ZZZZ', 'LIVE', 'DEAD', 'TMYF']) {
      const response = await validateCode(code);
      answers.push({ status: response.statusCode, body: response.body });
    }
    await context.database.db
      .update(sims)
      .set({ isBarred: false })
      .where(eq(sims.iccid, demoStockIccid('TMYF')));
    expect(new Set(answers.map((answer) => JSON.stringify(answer))).size).toBe(1);
    expect(answers[0]).toEqual({
      status: 404,
      body: JSON.stringify({ code: 'NOT_FOUND', message: messages.unavailableCode }),
    });
    expect(messages.unavailableCode).toContain('20-digit method');
    expect(messages.unavailableCode).toContain(testConfig().supportEmail);
  });
});

describe('guessing limits on 4-letter codes', () => {
  it('counts only failures: a farmer with the right code is never slowed', async () => {
    const ip = nextIp();
    for (let attempt = 0; attempt < codeLimits.perSession.limit * 3; attempt += 1) {
      expect((await validateCode('KQTX', ip, 'session-right')).statusCode).toBe(200);
    }
  });

  it(`allows ${codeLimits.perSession.limit} failures per session, then 429 with Retry-After, and doubles the wait each time`, async () => {
    const ip = nextIp();
    const windowSeconds = codeLimits.perSession.windowSeconds;
    for (const round of [1, 2, 3]) {
      for (let attempt = 0; attempt < codeLimits.perSession.limit; attempt += 1) {
        expect((await validateCode('ZZZZ', ip, 'session-one')).statusCode).toBe(404);
      }
      const refused = await validateCode('KQTX', ip, 'session-one');
      expect(refused.statusCode).toBe(429);
      const wait = Number(refused.headers['retry-after']);
      expect(wait, `round ${round}`).toBe(windowSeconds * 2 ** (round - 1));
      expect(refused.json().message).toMatch(
        /^Too many activation code attempts\. Please try again in \d+ (minutes|hours)\./,
      );
      expect(refused.json().message).toContain('20-digit SIM number');
      // Still shut just before the wait ends, open after it.
      context.clock.advance((wait - 1) * 1000);
      expect((await validateCode('KQTX', ip, 'session-one')).statusCode).toBe(429);
      context.clock.advance(1000);
      expect((await validateCode('KQTX', ip, 'session-one')).statusCode).toBe(200);
    }
    // Someone who stops is forgotten: after the memory, the first wait is short again.
    context.clock.advance(codeLimits.backoff.memorySeconds * 1000);
    for (let attempt = 0; attempt < codeLimits.perSession.limit; attempt += 1) {
      await validateCode('ZZZZ', ip, 'session-one');
    }
    expect(Number((await validateCode('ZZZZ', ip, 'session-one')).headers['retry-after'])).toBe(
      windowSeconds,
    );
  });

  it('caps the wait at a day', async () => {
    const ip = nextIp();
    let wait = 0;
    for (let round = 0; round < 10; round += 1) {
      for (let attempt = 0; attempt <= codeLimits.perSession.limit; attempt += 1) {
        const response = await validateCode('ZZZZ', ip, 'session-capped');
        if (response.statusCode === 429) wait = Number(response.headers['retry-after']);
      }
      context.clock.advance(wait * 1000);
    }
    expect(wait).toBe(codeLimits.backoff.maxSeconds);
  });

  it('limits a network however many wizard sessions it makes up, and no one else', async () => {
    const ip = nextIp();
    for (let attempt = 0; attempt < codeLimits.perNetwork.limit; attempt += 1) {
      expect((await validateCode('ZZZZ', ip, `made-up-session-${attempt}`)).statusCode).toBe(404);
    }
    const refused = await validateCode('KQTX', ip, 'yet-another-session');
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBe(codeLimits.perNetwork.windowSeconds);
    // Another visitor is not affected, and the SIM's holder still has the 20-digit method.
    expect((await validateCode('KQTX')).statusCode).toBe(200);
    expect(
      (
        await visitor(ip, 'yet-another-session')('/api/activation/validate-iccid', {
          iccid: demoStockIccid('KQTX'),
        })
      ).statusCode,
    ).toBe(200);
  });

  it('counts an IPv6 client by its /64, so new addresses buy nothing', async () => {
    for (let attempt = 0; attempt < codeLimits.perNetwork.limit; attempt += 1) {
      const ip = `2001:db8:77:1::${(attempt + 1).toString(16)}`;
      expect((await validateCode('ZZZZ', ip, `v6-session-${attempt}`)).statusCode).toBe(404);
    }
    expect((await validateCode('KQTX', '2001:db8:77:1::ffff', 'v6-new')).statusCode).toBe(429);
    expect((await validateCode('KQTX', '2001:db8:77:2::1', 'v6-other')).statusCode).toBe(200);
  });

  it('never shuts the door on a network with few failures today, however busy the global guard is', async () => {
    // A crowd of networks, each past its free failures, fills the global guard.
    let refusedByGlobal: Awaited<ReturnType<typeof validateCode>> | undefined;
    for (let network = 0; network < 20 && !refusedByGlobal; network += 1) {
      const ip = nextIp();
      for (let attempt = 0; attempt < codeLimits.perNetwork.limit; attempt += 1) {
        const response = await validateCode('ZZZZ', ip, `crowd-${network}-${attempt}`);
        if (response.statusCode === 429) {
          refusedByGlobal = response;
          break;
        }
      }
    }
    expect(refusedByGlobal?.json().message).toMatch(/being checked too often right now/);
    expect(Number(refusedByGlobal?.headers['retry-after'])).toBeGreaterThan(0);
    // A farmer on another network, with a typo or two, is not refused.
    const farmer = nextIp();
    for (let attempt = 1; attempt < codeLimits.freePerNetworkPerDay; attempt += 1) {
      expect((await validateCode('ZZZZ', farmer, 'farmer')).statusCode).toBe(404);
    }
    expect((await validateCode('KQTX', farmer, 'farmer')).statusCode).toBe(200);
    // The SIM-number method has its own budget.
    const byIccid = await visitor()('/api/activation/validate-iccid', {
      iccid: demoStockIccid('KQTX'),
    });
    expect(byIccid.statusCode).toBe(200);
  });

  it('never locks a SIM: many wrong guesses near its code do not stop its holder', async () => {
    for (let attempt = 0; attempt < 40; attempt += 1) {
      const near = `BWL${String.fromCharCode(65 + (attempt % 26))}`;
      if (near !== 'BWLM') await validateCode(near);
    }
    expect((await validateCode('BWLM')).statusCode).toBe(200);
  });

  it('cannot find a code by blind guessing within the limits: a run over the space is stopped early', async () => {
    // One client going through the space in order gets its allowance, then only 429s.
    const ip = nextIp();
    const statuses: number[] = [];
    for (let index = 0; index < 30; index += 1) {
      const code = `PJ${String.fromCharCode(65 + Math.floor(index / 26))}${String.fromCharCode(65 + (index % 26))}`;
      statuses.push((await validateCode(code, ip, `guessing-session-${index}`)).statusCode);
    }
    expect(statuses.filter((status) => status === 429)).toHaveLength(
      30 - codeLimits.perNetwork.limit,
    );
    expect(statuses).not.toContain(200);
  });
});

describe('POST /api/activation/validate-iccid and /api/activation/validate', () => {
  for (const path of ['/api/activation/validate-iccid', '/api/activation/validate']) {
    it(`${path}: a stock SIM passes; unknown, live and terminated numbers get one answer`, async () => {
      const call = visitor();
      expect((await call(path, { iccid: demoStockIccid('PJNV') })).json()).toEqual({
        success: true,
        message: 'SIM validated',
        iccid: demoStockIccid('PJNV'),
      });
      const answers = new Set<string>();
      for (const iccid of ['8944110000000999999', demoIccid(101), demoIccid(109)]) {
        const response = await visitor()(path, { iccid });
        answers.add(JSON.stringify({ status: response.statusCode, body: response.json() }));
      }
      expect([...answers]).toEqual([
        JSON.stringify({
          status: 404,
          body: { code: 'NOT_FOUND', message: messages.unavailableIccid },
        }),
      ]);
      for (const iccid of ['894411000000000901', '894411000000000901712', '89441100000000090I7']) {
        const malformed = await call(path, { iccid });
        expect(malformed.statusCode, iccid).toBe(400);
        expect(malformed.json().message).toContain('Enter the SIM number: 19 or 20 digits.');
      }
    });
  }

  it('limits failed SIM-number look-ups per session and per network, with back-off', async () => {
    const ip = nextIp();
    const unknown = { iccid: '8944110000000999999' };
    for (let attempt = 0; attempt < simLimits.perSession.limit; attempt += 1) {
      await visitor(ip, 'same-session')('/api/activation/validate-iccid', unknown);
    }
    const refused = await visitor(ip, 'same-session')('/api/activation/validate-iccid', unknown);
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBe(simLimits.perSession.windowSeconds);
    expect(refused.json().message).toMatch(
      /^Too many SIM checks\. Please try again in \d+ minutes\.$/,
    );
    for (
      let attempt = simLimits.perSession.limit;
      attempt < simLimits.perNetwork.limit;
      attempt += 1
    ) {
      await visitor(ip, `other-${attempt}`)('/api/activation/validate', unknown);
    }
    expect(
      (await visitor(ip, 'fresh')('/api/activation/validate', { iccid: demoStockIccid('PJNV') }))
        .statusCode,
    ).toBe(429);
  });

  it('does not count the look-ups of a SIM that is for sale: the wizard checks it several times', async () => {
    const call = visitor(nextIp(), 'whole-wizard');
    for (let attempt = 0; attempt < simLimits.perSession.limit * 2; attempt += 1) {
      expect(
        (await call('/api/activation/validate-iccid', { iccid: demoStockIccid('PJNV') }))
          .statusCode,
      ).toBe(200);
      expect(
        (await call('/api/activation/validate', { iccid: demoStockIccid('PJNV') })).statusCode,
      ).toBe(200);
    }
  });

  it('keys a signed-in customer on their session, not their IP', async () => {
    actors = await createActors(context);
    const ip = nextIp();
    for (let attempt = 0; attempt < codeLimits.perSession.limit; attempt += 1) {
      await context.app.inject({
        method: 'POST',
        url: '/api/activation/validate-activation-code',
        payload: { activationCode: 'ZZZZ' },
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
        await call('/api/activation/check-solar-sim', {
          iccid: demoStockIccid('KQTX'),
          location: 'uk',
        })
      ).json(),
    ).toEqual({
      is_solar_sim: false,
      pricing_table_id: 'local_uk',
    });
    expect(
      (
        await call('/api/activation/check-solar-sim', {
          iccid: demoStockIccid('KQTX'),
          location: 'ie',
        })
      ).json(),
    ).toEqual({
      is_solar_sim: false,
      pricing_table_id: 'local_ie',
    });
    expect(
      (
        await call('/api/activation/check-solar-sim', {
          iccid: demoStockIccid('CXGE'),
          location: 'ie',
        })
      ).json(),
    ).toEqual({
      is_solar_sim: true,
      pricing_table_id: 'local_ie_solar',
    });
    // The region defaults to uk (docs/requirements.md#input-rules).
    expect(
      (await call('/api/activation/check-solar-sim', { iccid: demoStockIccid('CXGE') })).json(),
    ).toEqual({
      is_solar_sim: true,
      pricing_table_id: 'local_uk_solar',
    });
  });

  it('refuses other regions and SIMs not for sale', async () => {
    const call = visitor();
    const region = await call('/api/activation/check-solar-sim', {
      iccid: demoStockIccid('KQTX'),
      location: 'fr',
    });
    expect(region.statusCode).toBe(400);
    expect(region.json().message).toContain('Region must be uk or ie');
    const live = await call('/api/activation/check-solar-sim', {
      iccid: demoIccid(101),
      location: 'uk',
    });
    expect(live.statusCode).toBe(404);
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
      'client-reference-id': demoStockIccid('KQTX'),
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
      subjectId: demoStockIccid('KQTX'),
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
      'client-reference-id': demoStockIccid('KQTX'),
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
      payload: { iccid: demoStockIccid('TMYF'), location: 'ie' },
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

  it("gives a new camera's account the farm's billing address and VAT number (decision 127)", async () => {
    const saved = await context.app.inject({
      method: 'PUT',
      url: '/api/billing/farm/details',
      headers: actors.headers.owner,
      payload: {
        name: 'Hill Farm Ltd',
        line1: '1 Hill Road',
        town: 'Exeter',
        postcode: 'EX1 2MP',
        vat_number: 'GB123456789',
      },
    });
    expect(saved.statusCode, saved.body).toBe(200);
    const created = await context.app.inject({
      method: 'POST',
      url: '/api/activation/billing-customer',
      payload: { iccid: demoStockIccid('TMYF'), location: 'uk' },
      headers: actors.headers.owner,
      remoteAddress: nextIp(),
    });
    expect(created.statusCode, created.body).toBe(200);
    const [account] = await context.database.db
      .select()
      .from(billingCustomers)
      .where(eq(billingCustomers.id, created.json<{ customer_id: string }>().customer_id));
    expect(account?.details).toEqual({
      name: 'Hill Farm Ltd',
      line1: '1 Hill Road',
      line2: null,
      town: 'Exeter',
      postcode: 'EX1 2MP',
      vatNumber: 'GB123456789',
    });
  });

  it('refuses a SIM that is not for sale', async () => {
    const response = await context.app.inject({
      method: 'POST',
      url: '/api/activation/billing-customer',
      payload: { iccid: demoIccid(101) },
      headers: actors.headers.owner,
    });
    expect(response.statusCode).toBe(404);
  });
});
