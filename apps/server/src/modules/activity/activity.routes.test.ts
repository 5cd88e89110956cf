/**
 * The account's activity log (docs/decisions/092): entries written by real actions through the
 * API, read back by the owner (and staff inside their portal) with filters and stable paging;
 * refused to members and invisible to other customers.
 */
import type { ActivityEntry, ActivityResponse } from '@farmcam/contract';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActors, type Actors } from '../../../test/helpers/authorization.ts';
import { createSignedInMember } from '../../../test/helpers/members.ts';
import { createTestContext, type TestContext } from '../../../test/helpers/test-app.ts';
import { accountMembers, auditLog, sims } from '../../db/schema.ts';
import { businessDay } from '../../lib/business-calendar.ts';
import { demoIccid, seedDemoData } from '../../seed/demo.ts';

let context: TestContext;
let actors: Actors;
let manager: Record<string, string>;
let viewer: Record<string, string>;
const billingCustomerOf: Record<number, string> = {};
const browser = 'Mozilla/5.0 (X11; Linux x86_64) FarmTest/1.0';

const ownerEmail = 'demo@example.com';

async function activity(
  headers: Record<string, string>,
  query: Record<string, string> = {},
): Promise<ActivityResponse> {
  const response = await context.app.inject({
    method: 'GET',
    url: `/api/activity?${new URLSearchParams(query).toString()}`,
    headers,
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<ActivityResponse>();
}

async function rename(
  headers: Record<string, string>,
  serial: number,
  nickname: string,
  remoteAddress = '203.0.113.7',
) {
  const response = await context.app.inject({
    method: 'POST',
    url: '/api/cameras/update-nickname',
    headers: { ...headers, 'user-agent': browser },
    payload: { simIccid: demoIccid(serial), nickname },
    remoteAddress,
  });
  expect(response.statusCode, response.body).toBe(200);
}

const form = (fields: Record<string, string>) => ({
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  payload: new URLSearchParams(fields).toString(),
});

beforeAll(async () => {
  context = await createTestContext();
  actors = await createActors(context, ownerEmail);
  await seedDemoData(context.database.db, context.clock);
  for (const row of await context.database.db.select().from(sims)) {
    const serial = Number(row.iccid.slice(12, 18));
    if (row.billingCustomerId) billingCustomerOf[serial] = row.billingCustomerId;
  }
  manager = (
    await createSignedInMember(context, actors.ownerId, {
      email: 'herd@example.com',
      role: 'manager',
    })
  ).headers;
  viewer = (
    await createSignedInMember(context, actors.ownerId, {
      email: 'vet-activity@example.com',
      role: 'viewer',
      allCameras: false,
      iccids: [demoIccid(101)],
    })
  ).headers;
});
afterAll(() => context.close());

describe('what the activity log records', () => {
  it('records a rename with who, from where and which camera', async () => {
    await rename(actors.headers.owner, 101, 'North gate');
    const [entry] = (await activity(actors.headers.owner, { category: 'cameras' })).entries;
    expect(entry).toMatchObject({
      category: 'cameras',
      action: 'camera.rename',
      summary: 'Renamed "Top gate" to "North gate"',
      actor: { kind: 'owner', email: ownerEmail, staffEmail: null },
      iccid: demoIccid(101),
      ip: '203.0.113.7',
      userAgent: browser,
    });
  });

  it('says where an entry came from in words: a network the person used before or a new one (decision 142)', async () => {
    await rename(actors.headers.owner, 102, 'Ewes', '203.0.113.99');
    await rename(actors.headers.owner, 102, 'Ewes 2', '198.51.100.4');
    await rename(actors.headers.owner, 102, 'Ewes 3', '192.168.1.5');
    const entries = (await activity(actors.headers.owner, { iccid: demoIccid(102) })).entries;
    expect(entries.slice(0, 3).map((entry) => [entry.summary, entry.place])).toEqual([
      ['Renamed "Ewes 2" to "Ewes 3"', 'A private network'],
      ['Renamed "Ewes" to "Ewes 2"', 'A new network for them'],
      // The owner renamed Top gate from 203.0.113.7 before: the same /24.
      ['Renamed "Lambing shed" to "Ewes"', 'A network they used before'],
    ]);
    // Another person's use of a network does not make it one they used before.
    await rename(manager, 102, 'Ewes 4', '198.51.100.77');
    const [byManager] = (await activity(actors.headers.owner, { iccid: demoIccid(102) })).entries;
    expect(byManager?.place).toBe('A new network for them');
  });

  it('records a manager by their own e-mail and role', async () => {
    await rename(manager, 103, 'Yard');
    const [entry] = (await activity(actors.headers.owner, { category: 'cameras' })).entries;
    expect(entry).toMatchObject({
      action: 'camera.rename',
      actor: { kind: 'manager', email: 'herd@example.com', staffEmail: null },
    });
  });

  it('names the role the person had when they acted, not the one they have now', async () => {
    const contractor = await createSignedInMember(context, actors.ownerId, {
      email: 'contractor-role@example.com',
      role: 'manager',
    });
    await rename(contractor.headers, 103, 'Yard 2');
    await context.database.db
      .update(accountMembers)
      .set({ role: 'viewer' })
      .where(eq(accountMembers.id, contractor.memberId));
    const [entry] = (await activity(actors.headers.owner, { category: 'cameras' })).entries;
    expect(entry).toMatchObject({
      summary: 'Renamed "Yard" to "Yard 2"',
      actor: { kind: 'manager', email: 'contractor-role@example.com' },
    });
    await rename(actors.headers.owner, 103, 'Yard');
  });

  it('marks what staff did inside the portal as staff, and their opening of it', async () => {
    await rename(actors.headers.team, 103, 'Farmyard');
    const entries = (await activity(actors.headers.owner, { category: 'staff' })).entries;
    expect(entries.map((entry) => entry.action)).toContain('staff.impersonation.start');
    const [renamed] = (await activity(actors.headers.owner, { category: 'cameras' })).entries;
    expect(renamed!.actor.kind).toBe('staff');
    expect(renamed!.actor.staffEmail).toMatch(/^team-.*@example\.com$/);
    expect(renamed!.summary).toBe('Renamed "Yard" to "Farmyard"');
  });

  it('records a plan change and its payment (made by the system)', async () => {
    const response = await context.app.inject({
      method: 'POST',
      url: '/api/subscriptions/change-plan',
      headers: { ...actors.headers.owner, 'user-agent': browser },
      payload: { customerId: billingCustomerOf[101], newPlanId: 'price_heavy_month_uk' },
    });
    expect(response.statusCode, response.body).toBe(200);
    const plans = (await activity(actors.headers.owner, { category: 'plans' })).entries;
    expect(plans[0]).toMatchObject({
      action: 'billing.plan_changed',
      actor: { kind: 'owner', email: ownerEmail },
      iccid: demoIccid(101),
      userAgent: browser,
    });
    expect(plans[0]!.summary).toMatch(/^Changed the plan from .+ to Heavy .+ \(£15\.95 charged/);
    const billing = (await activity(actors.headers.owner, { category: 'billing' })).entries;
    expect(billing[0]).toMatchObject({
      action: 'billing.payment_succeeded',
      actor: { kind: 'system', email: null },
      iccid: demoIccid(101),
    });
    expect(billing[0]!.summary).toMatch(/^Payment of £15\.95 received for invoice /);
  });

  it('records a pause', async () => {
    const response = await context.app.inject({
      method: 'POST',
      url: '/api/pause/pause-subscription',
      headers: actors.headers.owner,
      payload: { customer_id: billingCustomerOf[103], resume_date: '2026-06-01' },
    });
    expect(response.statusCode, response.body).toBe(200);
    const [entry] = (await activity(actors.headers.owner, { category: 'plans' })).entries;
    expect(entry).toMatchObject({
      action: 'billing.pause_scheduled',
      summary: 'Paused the plan from 1 April 2026, restarting on 1 June 2026',
      iccid: demoIccid(103),
    });
  });

  it('records a card added on the billing page', async () => {
    const portal = await context.app.inject({
      method: 'GET',
      url: `/api/billing/create-portal-session?customerId=${billingCustomerOf[103]}`,
      headers: actors.headers.owner,
    });
    expect(portal.statusCode, portal.body).toBe(200);
    const path = new URL(portal.json<{ url: string }>().url).pathname;
    const added = await context.app.inject({
      method: 'POST',
      url: `${path}/cards`,
      ...form({ number: '5555 5555 5555 4444', expiry: '11 / 31', cvc: '321', makeDefault: 'yes' }),
    });
    expect(added.statusCode).toBe(303);
    const [entry, opened] = (await activity(actors.headers.owner, { category: 'billing' })).entries;
    expect(entry).toMatchObject({
      action: 'billing.card_added',
      summary: 'Mastercard card ending 4444 was added',
      actor: { kind: 'system' },
      iccid: demoIccid(103),
    });
    // Who opened the billing page the card was typed on.
    expect(opened).toMatchObject({
      action: 'billing.portal_opened',
      actor: { kind: 'owner', email: ownerEmail },
      iccid: demoIccid(103),
    });
  });
});

describe('filters', () => {
  it('by person, camera and category', async () => {
    const byManager = (await activity(actors.headers.owner, { actor: 'HERD@example.com' })).entries;
    expect(byManager.length).toBeGreaterThan(0);
    expect(byManager.every((entry) => entry.actor.email === 'herd@example.com')).toBe(true);

    const camera = (await activity(actors.headers.owner, { iccid: demoIccid(103), limit: '100' }))
      .entries;
    expect(camera.length).toBeGreaterThan(0);
    expect(camera.every((entry) => entry.iccid === demoIccid(103))).toBe(true);

    const signIns = (await activity(actors.headers.owner, { category: 'sign-in' })).entries;
    expect(signIns.length).toBeGreaterThan(0);
    expect(signIns.every((entry) => entry.category === 'sign-in')).toBe(true);
  });

  it('by UK days, summer time included', async () => {
    // 23:30 UTC on 30 June is half past midnight on 1 July in the UK.
    await context.database.db.insert(auditLog).values({
      actorType: 'customer',
      actorId: actors.ownerId,
      actorEmail: ownerEmail,
      accountId: actors.ownerId,
      action: 'camera.rename',
      subjectType: 'sim',
      subjectId: demoIccid(104),
      details: { from: 'Calving pen', to: 'Calving pen 2' },
      at: new Date('2025-06-30T23:30:00Z'),
    });
    const july = await activity(actors.headers.owner, { from: '2025-07-01', to: '2025-07-01' });
    expect(july.entries.map((entry) => entry.summary)).toEqual([
      'Renamed "Calving pen" to "Calving pen 2"',
    ]);
    const june = await activity(actors.headers.owner, { from: '2025-06-30', to: '2025-06-30' });
    expect(june.entries).toEqual([]);
    const today = businessDay(new Date());
    const now = await activity(actors.headers.owner, { from: today, to: today });
    expect(now.entries.length).toBeGreaterThan(0);

    const backwards = await context.app.inject({
      method: 'GET',
      url: '/api/activity?from=2025-07-02&to=2025-07-01',
      headers: actors.headers.owner,
    });
    expect(backwards.statusCode).toBe(400);
  });

  it('refuses a cursor it did not make, in words', async () => {
    const response = await context.app.inject({
      method: 'GET',
      url: '/api/activity?before=bm90LWEtY3Vyc29y',
      headers: actors.headers.owner,
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().message).toMatch(/Start again from the newest entries/);
  });
});

describe('paging', () => {
  it('walks every entry once, newest first, even while new ones arrive', async () => {
    const everything = (await activity(actors.headers.owner, { limit: '100' })).entries;
    expect(everything.length).toBeGreaterThan(6);
    expect(everything.length).toBeLessThan(100);

    const seen: ActivityEntry[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: ActivityResponse = await activity(actors.headers.owner, {
        limit: '3',
        ...(cursor ? { before: cursor } : {}),
      });
      seen.push(...page.entries);
      cursor = page.nextCursor;
      pages += 1;
      // Something happens between two pages: it is on top, not in the pages still to come.
      if (pages === 1) await rename(actors.headers.owner, 104, `Calving pen ${pages}`);
    } while (cursor);
    expect(seen.map((entry) => entry.id)).toEqual(everything.map((entry) => entry.id));
    const times = seen.map((entry) => Date.parse(entry.at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
  });

  it('pages entries written in the same instant by their id, none lost', async () => {
    const at = new Date('2024-01-15T10:00:00.123456Z');
    await context.database.db.insert(auditLog).values(
      Array.from({ length: 5 }, (_, index) => ({
        actorType: 'system' as const,
        actorId: null,
        accountId: actors.ownerId,
        action: 'livestream.switched-off-unused',
        subjectType: 'sim',
        subjectId: demoIccid(105),
        details: { days: 10 + index },
        at,
      })),
    );
    const query = { from: '2024-01-15', to: '2024-01-15', limit: '2' };
    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const page: ActivityResponse = await activity(actors.headers.owner, {
        ...query,
        ...(cursor ? { before: cursor } : {}),
      });
      ids.push(...page.entries.map((entry) => entry.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(ids).toHaveLength(5);
    expect(new Set(ids).size).toBe(5);
  });
});

describe('who may read it', () => {
  it('the owner and staff inside their portal; not members, other customers or strangers', async () => {
    const call = (headers: Record<string, string>) =>
      context.app.inject({ method: 'GET', url: '/api/activity', headers });
    expect((await call(actors.headers.owner)).statusCode).toBe(200);
    expect((await call(actors.headers.team)).statusCode).toBe(200);
    expect((await call(actors.headers.admin)).statusCode).toBe(200);
    expect((await call(manager)).statusCode).toBe(403);
    expect((await call(viewer)).statusCode).toBe(403);
    expect((await call(actors.headers.anonymous)).statusCode).toBe(401);
    expect((await call(actors.headers.teamUnscoped)).statusCode).toBe(403);
    expect((await call(actors.headers.adminUnscoped)).statusCode).toBe(403);
  });

  it("another customer sees only their own account's entries", async () => {
    const other = (await activity(actors.headers.otherCustomer, { limit: '100' })).entries;
    const owners = new Set(
      (await activity(actors.headers.owner, { limit: '100' })).entries.map((e) => e.id),
    );
    expect(other.some((entry) => owners.has(entry.id))).toBe(false);
    expect(other.some((entry) => entry.actor.email === ownerEmail)).toBe(false);
    expect(other.some((entry) => entry.iccid !== null)).toBe(false);
    const forOwnersCamera = await activity(actors.headers.otherCustomer, {
      iccid: demoIccid(101),
    });
    expect(forOwnersCamera.entries).toEqual([]);
  });

  it('keeps staff records and hidden codes off the screen', async () => {
    const rows = await context.database.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.action, 'auth.staff-login'));
    expect(rows.length).toBeGreaterThan(0);
    const entries = (await activity(actors.headers.owner, { limit: '100' })).entries;
    expect(entries.some((entry) => entry.action === 'auth.staff-login')).toBe(false);
  });
});
