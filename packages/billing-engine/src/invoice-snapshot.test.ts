/**
 * An issued invoice never changes (docs/decisions/026): its PDF and hosted page render from the
 * snapshot taken when it was finalised, so renaming the camera, the customer or changing
 * SUPPLIER_* afterwards leaves it, and its credit notes, as issued; the next invoice shows the
 * new details. Runs on PostgreSQL too (npm run test:pg).
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestContext,
  insertCustomer as insertPortalCustomer,
  testPublicUrl,
  type TestContext,
} from '../../../apps/server/test/helpers/test-app.ts';
import { createPaidHeavySubscriber } from '../../../apps/server/test/helpers/billing-subscriber.ts';
import { pdfText } from '../../../apps/server/test/helpers/pdf-text.ts';
import type { Config } from '../../../apps/server/src/config/config.ts';
import { creditNotes, customers, invoices, sims } from '@farmcam/db/schema';
import { seedCatalogue } from '../../../apps/server/src/seed/demo.ts';
import { creditNotePdfUrl, defaultInvoicing } from './ledger.ts';

const periodStart = new Date('2026-03-01T00:00:00Z');
const periodEnd = new Date('2026-04-01T00:00:00Z');

/**
 * The app's supplier configuration. The test changes it in place, as a restart with new
 * SUPPLIER_* values would: both the engine and the hosted pages hold this object.
 */
const supplier: Config['supplier'] = {
  name: 'Glen Cameras Ltd',
  addressLines: ['4 Mill Road', 'Ayr', 'KA7 1AA'],
  vatNumber: 'GB 123 4567 89',
  isConfigured: true,
};
const original = structuredClone(supplier);
const changed: Config['supplier'] = {
  name: 'Strath Telecom plc',
  addressLines: ['9 Harbour Street', 'Oban', 'PA34 4AA'],
  vatNumber: 'GB 987 6543 21',
  isConfigured: true,
};

let context: TestContext;
let portalCustomerId: string;
beforeAll(async () => {
  context = await createTestContext({ supplier });
  await seedCatalogue(context.database.db);
  portalCustomerId = await insertPortalCustomer(context, 'meg@hill-farm.example');
  await renameCustomer('Meg Hill');
});
afterAll(() => context.close());

const engine = () => context.services.billing.engine!;

async function renameCustomer(name: string) {
  await context.database.db
    .update(customers)
    .set({ name })
    .where(eq(customers.id, portalCustomerId));
}

/** A camera on Heavy monthly (1 March - 1 April), its first invoice paid. */
function createSubscriber(serial: number, nickname: string) {
  return createPaidHeavySubscriber(context.database.db, {
    portalCustomerId,
    serial,
    nickname,
    periodStart,
    periodEnd,
    // As the engine issues them: the configured supplier.
    invoicing: { ...defaultInvoicing, supplier },
  });
}

async function get(url: string) {
  const response = await context.app.inject({
    method: 'GET',
    url: url.replace(testPublicUrl, ''),
  });
  expect(response.statusCode).toBe(200);
  return response;
}

const pdf = async (url: string) => pdfText((await get(url)).rawPayload);
const page = async (url: string) => (await get(url)).body;

async function latestInvoice(subscriptionId: string) {
  const rows = await context.database.db
    .select()
    .from(invoices)
    .where(eq(invoices.subscriptionId, subscriptionId));
  return rows.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())[0]!;
}

async function renameCamera(iccid: string, nickname: string) {
  await context.database.db.update(sims).set({ nickname }).where(eq(sims.iccid, iccid));
}

function expectOriginal(text: string, camera: string) {
  for (const expected of [
    original.name,
    '4 Mill Road',
    `VAT number ${original.vatNumber}`,
    'Meg Hill',
    camera,
  ]) {
    expect(text).toContain(expected);
  }
  for (const unexpected of [changed.name, '9 Harbour Street', changed.vatNumber, 'Meg Drummond']) {
    expect(text).not.toContain(unexpected);
  }
}

describe('an issued invoice', () => {
  it('keeps its supplier, customer and camera after they change; the next invoice has the new ones', async () => {
    context.clock.set(new Date('2026-03-01T00:00:00Z'));
    const renewing = await createSubscriber(501, 'North gate');
    const refunded = await createSubscriber(502, 'Calving shed');
    // The renewal is issued by the engine's billing cycle, with the configured supplier.
    context.clock.set(new Date('2026-04-01T01:00:00Z'));
    await context.services.billing.cycle.runCycle();
    const april = await latestInvoice(renewing.subscriptionId);
    expect(april.id).not.toBe(renewing.invoice.id);
    await engine().refundCheckout({
      subscriptionId: refunded.subscriptionId,
      reason: 'The SIM went to another buyer first.',
    });
    const [note] = await context.database.db
      .select()
      .from(creditNotes)
      .where(eq(creditNotes.invoiceId, refunded.invoice.id));

    // Everything the documents named changes.
    await renameCamera(renewing.iccid, 'Old barn');
    await renameCamera(refunded.iccid, 'Bull pen');
    await renameCustomer('Meg Drummond');
    Object.assign(supplier, structuredClone(changed));

    const northGate = `North gate (ICCID ${renewing.iccid})`;
    expectOriginal(await pdf(april.invoicePdfUrl!), northGate);
    expectOriginal(await page(april.hostedInvoiceUrl!), northGate);
    expectOriginal(await pdf(renewing.invoice.invoicePdfUrl!), northGate);
    expect(await pdf(april.invoicePdfUrl!)).not.toContain('Old barn');
    expect(await page(april.hostedInvoiceUrl!)).not.toContain('Old barn');
    // The lines and totals are the issued ones too.
    const aprilText = await pdf(april.invoicePdfUrl!);
    expect(aprilText).toContain('1 Apr 2026 – 1 May 2026');
    expect(aprilText).toContain('£35.00');

    const noteText = await pdf(await creditNotePdfUrl(context.database.db, note!.id));
    expectOriginal(noteText, `Calving shed (ICCID ${refunded.iccid})`);
    expect(noteText).toContain(note!.number);

    // The next renewal is issued with today's supplier, customer and camera.
    context.clock.set(new Date('2026-05-01T01:00:00Z'));
    await context.services.billing.cycle.runCycle();
    const may = await latestInvoice(renewing.subscriptionId);
    expect(may.id).not.toBe(april.id);
    for (const text of [await pdf(may.invoicePdfUrl!), await page(may.hostedInvoiceUrl!)]) {
      for (const expected of [
        changed.name,
        '9 Harbour Street',
        changed.vatNumber,
        'Meg Drummond',
        `Old barn (ICCID ${renewing.iccid})`,
      ]) {
        expect(text).toContain(expected);
      }
      expect(text).not.toContain(original.name);
      expect(text).not.toContain('North gate');
    }
    Object.assign(supplier, structuredClone(original));
  });

  it('made before snapshots existed gets one on first read and keeps it', async () => {
    context.clock.set(new Date('2026-03-01T00:00:00Z'));
    const subscriber = await createSubscriber(503, 'Top field');
    const db = context.database.db;
    // As the migration leaves earlier invoices: no snapshot.
    await db.update(invoices).set({ snapshot: null }).where(eq(invoices.id, subscriber.invoice.id));
    await renameCamera(subscriber.iccid, 'Lower field');

    const first = await pdf(subscriber.invoice.invoicePdfUrl!);
    expect(first).toContain(`Lower field (ICCID ${subscriber.iccid})`);
    const [stored] = await db
      .select({ snapshot: invoices.snapshot })
      .from(invoices)
      .where(eq(invoices.id, subscriber.invoice.id));
    expect(stored!.snapshot).toMatchObject({
      camera: { nickname: 'Lower field', iccid: subscriber.iccid },
      total: 3500,
      tax: 583,
      lines: [{ description: '1 × Heavy Streaming (at £35.00 / month)', amount: 3500 }],
    });

    await renameCamera(subscriber.iccid, 'Hay store');
    expect(await pdf(subscriber.invoice.invoicePdfUrl!)).toContain(
      `Lower field (ICCID ${subscriber.iccid})`,
    );
  });
});
