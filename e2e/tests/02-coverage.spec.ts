import type { Page } from '@playwright/test';
import { expect, expectAccessible, test } from '../fixtures/portal.ts';

const ours = (page: Page) => page.getByRole('region', { name: 'Farmcam multi-network SIM' });
const networkRow = (page: Page, name: string) =>
  page
    .getByRole('region', { name: 'Single-network SIMs' })
    .getByRole('listitem')
    .filter({ has: page.getByText(name, { exact: true }) });

test.describe('postcode signal checker (public)', () => {
  test('a new visitor checks a demo postcode, switches indoor and outdoor, picks another address', async ({
    page,
    consoleErrors,
  }, testInfo) => {
    await page.goto('/postcode');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Check Signal Availability');
    await expect(page.getByRole('heading', { name: 'Demo postcodes' })).toBeVisible();
    await expectAccessible(page);
    await page.screenshot({ path: testInfo.outputPath('postcode-1280.png'), fullPage: true });

    await page.getByRole('button', { name: 'Check signal' }).click();
    await expect(page.getByText('Please enter a postcode')).toBeVisible();

    const field = page.getByLabel('Postcode');
    await field.pressSequentially('ex36 3lh');
    await expect(field).toHaveValue('EX363LH');
    await page.getByRole('button', { name: 'Check signal' }).click();
    await expect(page).toHaveURL(/\/postcode\/EX363LH$/);

    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Signal Availability');
    await expect(page.getByText('Demo data.')).toBeVisible();
    await expect(page.getByLabel('Address')).toHaveValue('DEMO-EX363LH-1');
    await expect(ours(page)).toContainText('Strong Signal');
    await expect(ours(page)).toContainText('Vodafone and EE here');
    await expect(networkRow(page, 'Vodafone')).toContainText('Strong Signal');
    await expect(networkRow(page, 'O2')).toContainText('Limited Signal');
    await expect(networkRow(page, 'EE')).toContainText('Strong Signal');
    await expect(networkRow(page, 'Three')).toContainText('Poor Signal');
    await expectAccessible(page);
    await page.screenshot({ path: testInfo.outputPath('result-outdoor-1280.png'), fullPage: true });

    await page.getByRole('radio', { name: 'Indoor' }).check();
    await expect(ours(page)).toContainText('Limited Signal');
    await expect(networkRow(page, 'O2')).toContainText('Poor Signal');
    await expect(page).toHaveURL(/location=indoor/);

    await page.getByLabel('Address').selectOption({ label: 'Lower Combe Barn, Twitchen' });
    await expect(ours(page)).toContainText('Poor Signal');
    await expect(page.getByText('Signal booster advised for indoors')).toBeVisible();
    await expectAccessible(page);
    await page.screenshot({ path: testInfo.outputPath('result-booster-1280.png'), fullPage: true });

    // The chosen address and position survive a reload.
    await page.reload();
    await expect(page.getByLabel('Address')).toHaveValue('DEMO-EX363LH-2');
    await expect(page.getByRole('radio', { name: 'Indoor' })).toBeChecked();

    await page.getByRole('radio', { name: 'Outdoor' }).check();
    await expect(ours(page)).toContainText('Strong Signal');
    await expect(networkRow(page, 'EE')).toContainText('Strong Signal');

    await expect(page.getByRole('link', { name: 'Activate a camera here' })).toHaveAttribute(
      'href',
      '/activate?postcode=EX363LH',
    );
    const logo = page.getByRole('link', { name: 'Farmcam website (opens in a new tab)' });
    await expect(logo).toHaveAttribute('href', 'https://www.example.com');
    await expect(logo).toHaveAttribute('target', '_blank');

    await page.getByRole('link', { name: 'Back to postcode entry' }).click();
    await expect(page).toHaveURL(/\/postcode$/);
    expect(consoleErrors).toEqual([]);
  });

  test('on a phone: pick a demo postcode, switch indoor and outdoor, pick another address', async ({
    page,
  }, testInfo) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto('/postcode');
    await expectAccessible(page);
    await page.screenshot({ path: testInfo.outputPath('postcode-390.png'), fullPage: true });

    await page.getByRole('link', { name: 'TD8 6SZ' }).click();
    await expect(page).toHaveURL(/\/postcode\/TD86SZ$/);
    await expect(ours(page)).toContainText('Strong Signal');
    await expect(page.getByText('Signal booster advised for indoors')).toBeVisible();
    await expectAccessible(page);
    await page.screenshot({ path: testInfo.outputPath('result-outdoor-390.png'), fullPage: true });

    await page.getByRole('radio', { name: 'Indoor' }).click();
    await expect(ours(page)).toContainText('Poor Signal');
    await page.getByLabel('Address').selectOption({ label: 'Oxnam Water Cottage, Oxnam' });
    await expect(ours(page)).toContainText('Limited Signal');
    await expect(networkRow(page, 'O2')).toContainText('Limited Signal');
    await expect(page.getByText('Signal booster advised for indoors')).toBeHidden();
    await expectAccessible(page);
    await page.screenshot({ path: testInfo.outputPath('result-indoor-390.png'), fullPage: true });

    await page.getByRole('radio', { name: 'Outdoor' }).click();
    await expect(ours(page)).toContainText('Limited Signal');
    await expect(networkRow(page, 'Vodafone')).toContainText('Poor Signal');
  });

  test('an invalid postcode explains itself, and an unknown one says there is no data', async ({
    page,
  }, testInfo) => {
    await page.goto('/postcode');
    await page.getByLabel('Postcode').fill('ABC 123');
    await page.getByRole('button', { name: 'Check signal' }).click();
    await expect(page).toHaveURL(/\/postcode\/ABC123$/);
    await expect(page.getByRole('heading', { name: 'That is not a UK postcode' })).toBeVisible();
    await expect(
      page.getByText('"ABC123" is not a valid UK postcode.', { exact: false }),
    ).toBeVisible();
    await expectAccessible(page);
    await page.screenshot({ path: testInfo.outputPath('invalid-1280.png'), fullPage: true });

    await page.getByLabel(/Try another postcode/).fill('sw1a 1aa');
    await page.getByRole('button', { name: 'Check signal' }).click();
    await expect(page).toHaveURL(/\/postcode\/SW1A1AA$/);
    await expect(
      page.getByRole('heading', { name: 'No coverage data for this postcode' }),
    ).toBeVisible();
    await expect(
      page.getByText('The demo data covers only the demo postcodes.', { exact: false }),
    ).toBeVisible();
    await expectAccessible(page);
    await page.screenshot({ path: testInfo.outputPath('no-data-1280.png'), fullPage: true });
  });

  test('the checker works the same for a signed-in customer', async ({ page, signIn }) => {
    await signIn('second@example.com');
    await page.goto('/postcode/GL71AN');
    await expect(ours(page)).toContainText('Strong Signal');
    await page.goto('/postcode');
    await page.getByRole('link', { name: 'Go to dashboard' }).click();
    await expect(page).toHaveURL(/\/dashboard$/);
  });
});
