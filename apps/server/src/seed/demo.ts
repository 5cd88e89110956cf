/**
 * Demo data for local mode, seeded once (a marker in app_settings makes it idempotent):
 * demo@example.com with a camera in every card state of docs/requirements.md#states, second@example.com with one
 * camera, and stock SIMs with activation codes. docs/demo.md lists them. The demo
 * account's team has vet@example.com, a Viewer of one camera (docs/decisions/091), added to
 * demo data seeded before teams existed as well.
 */
import { createHash } from 'node:crypto';
import { withLuhnDigit } from '@farmcam/contract';
import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Clock } from '../lib/clock.ts';
import { advisoryLockKeys, type Database, type Executor } from '../db/client.ts';
import {
  accountMemberCameras,
  accountMembers,
  appSettings,
  customers,
  dailyUsage,
  invoiceLines,
  invoices,
  prices,
  products,
  routerStatus,
  sims,
  subscriptions,
  type BillingInterval,
  type PlanTier,
  type SubscriptionStatus,
} from '../db/schema.ts';
import { attemptsMadeBy, nextRetryAt } from '@farmcam/billing/dunning-policy';
import {
  defaultInvoicing,
  includedVat,
  insertCard,
  insertCustomer,
  invoiceUrls,
  numberInvoicesInCreationOrder,
} from '@farmcam/billing-engine';
import { catalogueProducts, cataloguePrices, priceId } from './catalogue.ts';
import { demoSilentSerial, seedDemoWatch } from './demo-watch.ts';
import { demoLinksSerial, seedDemoLinks } from './demo-links.ts';
import { demoTimelapseSerial, seedDemoTimelapse } from './demo-timelapse.ts';

const seedMarker = 'demo-seed-version';
const seedVersion = 1;
/** The demo team is seeded once, on its own marker: a removed vet does not come back. */
const teamSeedMarker = 'demo-team-seed-version';

/** A member of the demo account, so the Team screen and a Viewer's portal show without setup. */
export const demoMember = {
  email: 'vet@example.com',
  ownerEmail: 'demo@example.com',
  role: 'viewer' as const,
  /** The camera the vet may watch: "Top gate". */
  cameraSerial: 101,
};

type DemoState =
  | 'active'
  | 'paused'
  | 'pause-scheduled'
  | 'past-due'
  | 'overdue'
  | 'terminated'
  | 'no-subscription';

interface DemoCamera {
  serial: number;
  nickname: string;
  tier: PlanTier;
  interval: BillingInterval;
  state: DemoState;
}

export const demoCustomers: { email: string; cameras: DemoCamera[] }[] = [
  {
    email: 'demo@example.com',
    cameras: [
      { serial: 101, nickname: 'Top gate', tier: 'light', interval: 'month', state: 'active' },
      {
        serial: 102,
        nickname: 'Lambing shed',
        tier: 'standard',
        interval: 'year',
        state: 'active',
      },
      { serial: 103, nickname: 'Farmyard', tier: 'heavy', interval: 'month', state: 'active' },
      { serial: 104, nickname: 'Calving pen', tier: 'heavy', interval: 'year', state: 'active' },
      {
        serial: 105,
        nickname: 'Grain store',
        tier: 'standard',
        interval: 'month',
        state: 'paused',
      },
      {
        serial: 106,
        nickname: 'Holiday cottage',
        tier: 'light',
        interval: 'month',
        state: 'pause-scheduled',
      },
      {
        serial: 107,
        nickname: 'Fuel tank',
        tier: 'standard',
        interval: 'month',
        state: 'past-due',
      },
      { serial: 108, nickname: 'Bottom field', tier: 'light', interval: 'month', state: 'overdue' },
      {
        serial: 109,
        nickname: 'Old dairy',
        tier: 'standard',
        interval: 'month',
        state: 'terminated',
      },
      {
        serial: 110,
        nickname: 'Machinery shed',
        tier: 'light',
        interval: 'month',
        state: 'no-subscription',
      },
    ],
  },
  {
    email: 'second@example.com',
    cameras: [
      {
        serial: 201,
        nickname: 'Stable yard',
        tier: 'standard',
        interval: 'month',
        state: 'active',
      },
    ],
  },
];

/**
 * Unactivated SIMs in stock; docs/demo.md lists them so that anyone can try the wizard. Their
 * numbers were drawn once with crypto.randomInt (89 44, then 14 random digits and the Luhn
 * digit), fixed here: numbers in sequence would let one SIM's number lead a guesser to the rest
 * (docs/decisions/063).
 */
export const demoStockSims = [
  { iccid: '8944711800958764932', activationCode: 'KQTX', kind: 'standard' as const },
  { iccid: '8944252042800073627', activationCode: 'BWLM', kind: 'standard' as const },
  { iccid: '8944304126752840832', activationCode: 'RHZD', kind: 'standard' as const },
  { iccid: '8944442619579162078', activationCode: 'PJNV', kind: 'standard' as const },
  { iccid: '8944686441257967867', activationCode: 'CXGE', kind: 'solar' as const },
  { iccid: '8944702345135332725', activationCode: 'TMYF', kind: 'standard' as const },
];

export type DemoStockCode = (typeof demoStockSims)[number]['activationCode'];

/** The ICCID of the demo stock SIM with this activation code. */
export const demoStockIccid = (activationCode: DemoStockCode): string =>
  demoStockSims.find((stock) => stock.activationCode === activationCode)!.iccid;

/** A UK-style 19-digit ICCID (89 44 …) with a valid Luhn digit. */
export const demoIccid = (serial: number) =>
  withLuhnDigit(`894411000000${String(serial).padStart(6, '0')}`);

const providerId = (prefix: string, seed: string) =>
  `${prefix}_${createHash('sha256').update(seed).digest('base64url').replace(/[-_]/g, '').slice(0, 14)}`;

const utcDate = (year: number, month: number, day: number) => new Date(Date.UTC(year, month, day));
const isoDay = (date: Date) => date.toISOString().slice(0, 10);
const addMonths = (date: Date, months: number) =>
  utcDate(date.getUTCFullYear(), date.getUTCMonth() + months, date.getUTCDate());

const allowanceGb: Record<PlanTier, number> = Object.fromEntries(
  catalogueProducts.map((product) => [product.tier, product.dataAllowanceGb]),
) as Record<PlanTier, number>;

/** Deterministic pseudo-random numbers so the demo looks the same on every machine. */
function seededRandom(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1664525 + 1013904223) % 4294967296;
    return state / 4294967296;
  };
}

export async function seedCatalogue(executor: Executor): Promise<void> {
  await executor.insert(products).values(catalogueProducts).onConflictDoNothing();
  await executor.insert(prices).values(cataloguePrices).onConflictDoNothing();
}

export async function isDemoSeeded(db: Executor): Promise<boolean> {
  const [row] = await db.select().from(appSettings).where(eq(appSettings.key, seedMarker));
  return Number(row?.value) >= seedVersion;
}

export async function seedDemoData(db: Database, clock: Clock): Promise<boolean> {
  if (await isDemoSeeded(db)) {
    await db.transaction(async (transaction) => {
      await transaction.execute(sql`select pg_advisory_xact_lock(${advisoryLockKeys.demoSeed})`);
      await seedDemoTeam(transaction, clock.now());
      await seedDemoWatch(transaction, demoWatchInput(clock.now()));
      await seedDemoLinks(transaction, demoLinksInput(clock.now()));
      await seedDemoTimelapse(transaction, demoTimelapseInput(clock.now()));
    });
    return false;
  }
  const now = clock.now();
  const monthStart = utcDate(now.getUTCFullYear(), now.getUTCMonth(), 1);

  return db.transaction(async (transaction) => {
    // Processes starting at once on one database take turns here, and only the first seeds: the
    // others find the marker (docs/decisions/065).
    await transaction.execute(sql`select pg_advisory_xact_lock(${advisoryLockKeys.demoSeed})`);
    if (await isDemoSeeded(transaction)) return false;
    await seedCatalogue(transaction);
    for (const customer of demoCustomers) {
      const [row] = await transaction
        .insert(customers)
        .values({ email: customer.email, createdAt: addMonths(monthStart, -8) })
        .onConflictDoNothing()
        .returning();
      const customerId =
        row?.id ??
        (await transaction.select().from(customers).where(eq(customers.email, customer.email)))[0]!
          .id;
      for (const camera of customer.cameras) {
        await seedCamera(transaction, {
          customerId,
          email: customer.email,
          camera,
          now,
          monthStart,
        });
      }
    }
    await numberInvoicesInCreationOrder(transaction);
    await seedDemoTeam(transaction, now);
    await seedDemoWatch(transaction, demoWatchInput(now));
    await seedDemoLinks(transaction, demoLinksInput(now));
    await seedDemoTimelapse(transaction, demoTimelapseInput(now));
    for (const stock of demoStockSims) {
      await transaction
        .insert(sims)
        .values({
          iccid: stock.iccid,
          activationCode: stock.activationCode,
          kind: stock.kind,
          state: 'stock',
        })
        .onConflictDoNothing();
    }
    await transaction
      .insert(appSettings)
      .values({ key: seedMarker, value: seedVersion })
      .onConflictDoUpdate({ target: appSettings.key, set: { value: seedVersion } });
    return true;
  });
}

const demoWatchInput = (now: Date) => ({
  now,
  ownerEmail: 'demo@example.com',
  iccid: demoIccid(demoSilentSerial),
});

const demoTimelapseInput = (now: Date) => ({
  now,
  ownerEmail: 'demo@example.com',
  iccid: demoIccid(demoTimelapseSerial),
});

const demoLinksInput = (now: Date) => ({
  now,
  ownerEmail: 'demo@example.com',
  iccid: demoIccid(demoLinksSerial),
});

/** The vet on the demo account, accepted so they can sign in with their e-mail; once. */
async function seedDemoTeam(executor: Executor, now: Date): Promise<void> {
  const [marker] = await executor
    .select()
    .from(appSettings)
    .where(eq(appSettings.key, teamSeedMarker));
  if (marker) return;
  const [owner] = await executor
    .select()
    .from(customers)
    .where(eq(customers.email, demoMember.ownerEmail));
  if (!owner) return;
  const iccid = demoIccid(demoMember.cameraSerial);
  const [camera] = await executor.select().from(sims).where(eq(sims.iccid, iccid));
  const [current] = await executor
    .select()
    .from(accountMembers)
    .where(
      and(
        eq(accountMembers.customerId, owner.id),
        eq(accountMembers.email, demoMember.email),
        isNull(accountMembers.removedAt),
      ),
    );
  if (!current && camera?.customerId === owner.id) {
    const [member] = await executor
      .insert(accountMembers)
      .values({
        customerId: owner.id,
        email: demoMember.email,
        role: demoMember.role,
        allCameras: false,
        acceptedAt: now,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    await executor.insert(accountMemberCameras).values({ memberId: member!.id, iccid });
  }
  await executor
    .insert(appSettings)
    .values({ key: teamSeedMarker, value: 1 })
    .onConflictDoNothing();
}

async function seedCamera(
  executor: Executor,
  input: {
    customerId: string;
    email: string;
    camera: DemoCamera;
    now: Date;
    monthStart: Date;
  },
): Promise<void> {
  const { camera, now, monthStart } = input;
  const iccid = demoIccid(camera.serial);
  const billingCustomerId = providerId('cus', `demo-${camera.serial}`);
  const activatedAt = addMonths(monthStart, -7 + (camera.serial % 3));
  const terminatedAt = camera.state === 'terminated' ? addMonths(monthStart, -2) : null;
  const pausedSince = camera.state === 'paused' ? monthStart : null;

  // Billing accounts, cards and invoices are made by the local billing engine's ledger, as the
  // app makes them (invoices get their hosted page and PDF links).
  await insertCustomer(executor, {
    id: billingCustomerId,
    portalCustomerId: input.customerId,
    email: input.email,
  });

  const simState =
    camera.state === 'terminated' ? 'terminated' : camera.state === 'paused' ? 'paused' : 'active';
  await executor
    .insert(sims)
    .values({
      iccid,
      kind: 'standard',
      state: simState,
      customerId: input.customerId,
      billingCustomerId,
      nickname: camera.nickname,
      activatedAt,
      terminatedAt,
    })
    .onConflictDoNothing();

  const status: SubscriptionStatus = {
    active: 'active',
    'pause-scheduled': 'active',
    paused: 'paused',
    'past-due': 'past_due',
    overdue: 'overdue',
    terminated: 'canceled',
    'no-subscription': 'canceled',
  }[camera.state] as SubscriptionStatus;

  const periodMonths = camera.interval === 'year' ? 12 : 1;
  const pastDueSince =
    camera.state === 'past-due'
      ? new Date(now.getTime() - 3 * 86_400_000)
      : camera.state === 'overdue'
        ? new Date(now.getTime() - 12 * 86_400_000)
        : null;
  // Monthly plans renew on the 1st; annual plans on their activation anniversary; an unpaid
  // plan on the day its renewal failed (the dunning clock starts there, decision 025).
  const currentPeriodStart =
    pastDueSince ?? (camera.interval === 'year' ? activatedAt : monthStart);
  const currentPeriodEnd = addMonths(currentPeriodStart, periodMonths);
  const subscriptionId = providerId('sub', `demo-${camera.serial}`);
  const price = priceId(camera.tier, camera.interval);

  await executor
    .insert(subscriptions)
    .values({
      id: subscriptionId,
      billingCustomerId,
      simIccid: iccid,
      priceId: price,
      status,
      currentPeriodStart,
      currentPeriodEnd,
      billingCycleAnchor: currentPeriodStart,
      pauseStartsOn:
        camera.state === 'paused'
          ? isoDay(monthStart)
          : camera.state === 'pause-scheduled'
            ? isoDay(addMonths(monthStart, 1))
            : null,
      pauseResumesOn:
        camera.state === 'paused'
          ? isoDay(addMonths(monthStart, 2))
          : camera.state === 'pause-scheduled'
            ? isoDay(addMonths(monthStart, 3))
            : null,
      pastDueSince,
      canceledAt:
        camera.state === 'terminated'
          ? terminatedAt
          : camera.state === 'no-subscription'
            ? new Date(now.getTime() - 5 * 86_400_000)
            : null,
      createdAt: activatedAt,
    })
    .onConflictDoNothing();

  const isExpiredCard = camera.serial === 107;
  // The overdue camera's card is the test card that is saved but declines every charge
  // (4000 0000 0000 0341), so its retries fail and it stays overdue as the test clock moves on,
  // until it is paid with another card or canceled on day 30 (decision 108).
  const isDecliningCard = camera.state === 'overdue';
  await insertCard(executor, {
    id: providerId('pm', `demo-${camera.serial}`),
    billingCustomerId,
    brand: camera.serial % 2 === 0 && !isDecliningCard ? 'mastercard' : 'visa',
    last4: isDecliningCard ? '0341' : camera.serial % 2 === 0 ? '4444' : '4242',
    expMonth: isExpiredCard ? 3 : 12,
    expYear: isExpiredCard ? now.getUTCFullYear() - 1 : now.getUTCFullYear() + 3,
    makeDefault: true,
    // Saved at activation, so an unpaid renewal was tried with it (bill-words.ts).
    createdAt: activatedAt,
  });

  const unitAmount =
    {
      light: 1200,
      standard: 2000,
      heavy: 3500,
    }[camera.tier] * (camera.interval === 'year' ? 10 : 1);
  const productName = catalogueProducts.find((product) => product.tier === camera.tier)!.name;
  const invoiceRows: (typeof invoices.$inferInsert)[] = [];
  for (let cycle = camera.interval === 'year' ? 0 : 5; cycle >= 0; cycle -= 1) {
    const start = addMonths(currentPeriodStart, -cycle * periodMonths);
    if (start < activatedAt || (terminatedAt && start >= terminatedAt)) continue;
    if (pausedSince && start >= pausedSince) continue;
    const isUnpaid = cycle === 0 && pastDueSince !== null;
    const invoiceId = providerId('in', `demo-${camera.serial}-${cycle}`);
    invoiceRows.push({
      id: invoiceId,
      ...(await invoiceUrls(executor, invoiceId)),
      billingCustomerId,
      subscriptionId,
      // Renumbered in the supplier's one sequence once every camera is seeded (decision 026).
      number: `DEMO-${camera.serial}-${cycle}`,
      status: isUnpaid ? 'open' : 'paid',
      amountDue: unitAmount,
      amountPaid: isUnpaid ? 0 : unitAmount,
      subtotal: unitAmount,
      total: unitAmount,
      tax: includedVat(unitAmount, defaultInvoicing.vatRateBasisPoints),
      taxRateBasisPoints: defaultInvoicing.vatRateBasisPoints,
      currency: 'gbp',
      description: `1 × ${productName} (at £${(unitAmount / 100).toFixed(2)} / ${camera.interval})`,
      periodStart: start,
      periodEnd: addMonths(start, periodMonths),
      paidAt: isUnpaid ? null : start,
      // An unpaid renewal has been tried on the policy's days so far; its next try is booked.
      attemptCount: isUnpaid ? attemptsMadeBy(pastDueSince, now) : 1,
      nextPaymentAttempt: isUnpaid ? nextRetryAt(pastDueSince, now) : null,
      createdAt: start,
    });
  }
  if (invoiceRows.length > 0) {
    await executor.insert(invoices).values(invoiceRows).onConflictDoNothing();
    await executor
      .insert(invoiceLines)
      .values(
        invoiceRows.map((row) => ({
          id: providerId('il', row.id),
          billingCustomerId,
          subscriptionId,
          invoiceId: row.id,
          description: row.description,
          amount: unitAmount,
          periodStart: row.periodStart,
          periodEnd: row.periodEnd,
          createdAt: row.createdAt,
        })),
      )
      .onConflictDoNothing();
  }

  // Daily usage since activation, none while paused or after termination.
  const random = seededRandom(camera.serial);
  const dailyMeanBytes = (allowanceGb[camera.tier] * 0.7 * 1e9) / 30;
  const usageRows: (typeof dailyUsage.$inferInsert)[] = [];
  const today = utcDate(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  for (let day = new Date(activatedAt); day <= today; day = new Date(day.getTime() + 86_400_000)) {
    if (terminatedAt && day >= terminatedAt) break;
    if (pausedSince && day >= pausedSince) break;
    const weekendFactor = [0, 6].includes(day.getUTCDay()) ? 0.8 : 1.05;
    const bytes = Math.round(dailyMeanBytes * weekendFactor * (0.55 + random() * 0.9));
    usageRows.push({
      simIccid: iccid,
      day: isoDay(day),
      bytes:
        day.getTime() === today.getTime() ? Math.round(bytes * (now.getUTCHours() / 24)) : bytes,
    });
  }
  for (let index = 0; index < usageRows.length; index += 500) {
    await executor
      .insert(dailyUsage)
      .values(usageRows.slice(index, index + 500))
      .onConflictDoNothing();
  }

  if (simState === 'active') {
    const networks = [
      ['Vodafone UK', 'vodafone'],
      ['O2 - UK', 'o2'],
      ['EE', 'ee'],
      ['3 UK', 'three'],
    ] as const;
    const network = networks[camera.serial % networks.length]!;
    const dbm = -70 - Math.round(random() * 35);
    await executor
      .insert(routerStatus)
      .values({
        simIccid: iccid,
        networkName: `FARMCAM-${String(camera.serial).padStart(3, '0')}`,
        networkProvider: network[0],
        signalStrength: dbm > -85 ? 'Excellent' : dbm > -95 ? 'Good' : 'Fair',
        signalDbm: dbm,
      })
      .onConflictDoNothing();
  }
}
