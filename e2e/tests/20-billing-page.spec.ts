import { readFile } from 'node:fs/promises';
import { expect, test } from '../fixtures/portal.ts';
import { openPortalAs, screensAtBothWidths } from './dashboard-helpers.ts';

/**
 * One place for the farm's billing (issue 24 item 11, decisions 127–129), on the demo farm: the
 * owner finds Billing in the menu, sees every camera's invoices with their camera, dates and
 * status, filters them (kept in the address), downloads the CSV and a PDF, uses Pay all by
 * keyboard (the demo's unpaid cameras have declining or expired cards, so each bill's failure is
 * reported and nothing is paid: the demo's bills stay as other journeys expect them), opens the
 * one-card-for-every-camera page and comes back, and is refused an address that is not a UK
 * postcode in the server's words. Photographed at 1280 and 390 px.
 */
test.describe('the Billing page', () => {
  test("shows, filters, downloads and pays the farm's bills in one place", async ({
    page,
    signIn,
  }, testInfo) => {
    // The demo farm has about fifty invoices: full-page shots at 390 px are long to take.
    test.setTimeout(240_000);
    await openPortalAs(page, signIn, 'demo@example.com');
    await page.getByRole('navigation').getByRole('link', { name: 'Billing' }).first().click();
    await expect(page).toHaveURL(/\/billing$/);
    await expect(page.getByRole('heading', { level: 1, name: 'Billing' })).toBeVisible();
    const table = page.getByRole('table');
    await expect(table).toBeVisible();
    for (const name of ['Top gate', 'Fuel tank', 'Bottom field']) {
      await expect(table.getByRole('cell', { name, exact: true }).first()).toBeVisible();
    }
    await expect(page.getByRole('heading', { name: 'Due now' })).toBeVisible();
    await expect(page.getByRole('heading', { name: 'Next bills' })).toBeVisible();
    await expect(
      page.getByText(/Card ending 0341|Card ending \d{4} expired/).first(),
    ).toBeVisible();
    await screensAtBothWidths(page, testInfo, 'billing-page');

    // Unpaid only, kept through a reload; each row says Unpaid and why.
    await page.getByRole('combobox', { name: 'Status' }).selectOption('unpaid');
    await expect(page).toHaveURL(/\/billing\?status=unpaid$/);
    await page.reload();
    await expect(page.getByRole('combobox', { name: 'Status' })).toHaveValue('unpaid');
    const rows = table.locator('tbody tr');
    await expect(rows.first()).toBeVisible();
    const count = await rows.count();
    for (let index = 0; index < count; index += 1) {
      await expect(rows.nth(index)).toContainText('Unpaid');
    }
    await screensAtBothWidths(page, testInfo, 'billing-unpaid');

    // The accountant's CSV of what is shown, and an invoice's PDF.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^farmcam-invoices-\d{4}-\d{2}-\d{2}\.csv$/);
    const csv = await readFile((await download.path())!, 'utf8');
    const [header, ...lines] = csv.trim().split('\r\n');
    expect(header).toBe(
      'Invoice number,Camera,SIM,Date,Due date,Status,Net (£),VAT (£),Total (£),Paid (£),Still to pay (£),Currency',
    );
    expect(lines).toHaveLength(count);
    expect(
      lines.every((line) => /,\d{2}\/\d{2}\/\d{4},\d{2}\/\d{2}\/\d{4},Unpaid,/.test(line)),
    ).toBe(true);
    const pdf = await page.request.get(
      (await rows
        .first()
        .getByRole('link', { name: /Download PDF/ })
        .getAttribute('href'))!,
    );
    expect(pdf.headers()['content-type']).toBe('application/pdf');

    // Pay all by keyboard: each bill goes through its own camera's card; each failure is said.
    const payAll = page.getByRole('button', { name: /^Pay all £/ });
    await payAll.focus();
    await page.keyboard.press('Enter');
    const result = page.getByRole('status').filter({ hasText: /paid/ }).first();
    await expect(result).toContainText(/not paid: update (its|their) cards? below/);
    await expect(page.getByText(/^Bottom field: £\d+\.\d\d not paid\./)).toBeVisible();
    await screensAtBothWidths(page, testInfo, 'billing-pay-all');

    // One card for every camera: the engine's one form for all of them, and back.
    await page.getByRole('button', { name: 'Use one card for every camera' }).click();
    await expect(page).toHaveURL(/\/billing-engine\/card-setup\/cs_setup_/);
    await expect(page.getByRole('button', { name: /^Save card for \d+ cameras$/ })).toBeVisible();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({
      path: testInfo.outputPath('billing-card-setup-390.png'),
      fullPage: true,
    });
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByRole('link', { name: 'Cancel and go back' }).click();
    await expect(page).toHaveURL(/\/billing$/);

    // The billing address: a postcode that is not one is refused in the server's words.
    await page.getByRole('textbox', { name: 'Name on invoices' }).fill('Demo Farm');
    await page.getByRole('textbox', { name: 'Address line 1' }).fill('1 Demo Farm Lane');
    await page.getByRole('textbox', { name: 'Town' }).fill('Exampleton');
    await page.getByRole('textbox', { name: 'Postcode' }).fill('NOWHERE');
    await page.getByRole('textbox', { name: 'Postcode' }).press('Enter');
    await expect(page.getByRole('alert')).toHaveText('Enter a UK postcode, like EX1 2MP.');
    await screensAtBothWidths(page, testInfo, 'billing-details-refused');
  });
});
