import { expect, test } from '../fixtures/portal.ts';
import { openPersonContext, signInByEmail } from '../fixtures/team.ts';
import { card, openPortalAs, screensAtBothWidths } from './dashboard-helpers.ts';

/**
 * Find a camera among many (issue 24 item 12, decision 140), on the demo farm's ten cameras,
 * read only: search by name or SIM digits, a filter by state, an order, the choice kept in the
 * address through a reload, cameras needing attention first, a live region saying how many are
 * shown, and a way back from an empty result. Photographed at 1280 and 390 px.
 */
test.describe('finding a camera', () => {
  test('searches, filters and orders the demo farm, and keeps the choice in the address', async ({
    page,
    signIn,
  }, testInfo) => {
    await openPortalAs(page, signIn, 'demo@example.com');
    // What the server says of each camera now (earlier journeys may have paid or renewed some).
    const token = await page.evaluate(() => localStorage.getItem('token'));
    const plans = (await (
      await page.request.get('/api/cameras/plansV2', {
        headers: { authorization: `Bearer ${token}` },
      })
    ).json()) as { cameras: DemoCamera[] };
    const total = plans.cameras.length;
    const needing = plans.cameras.filter((camera) => camera.findStates.includes('needs-attention'));
    expect(total).toBeGreaterThanOrEqual(10);
    expect(needing.length).toBeGreaterThan(0);

    await page.goto('/dashboard');
    const finder = page.getByRole('search', { name: 'Find a camera' });
    await expect(finder).toBeVisible();
    const status = page.getByRole('status').filter({ hasText: / cameras?$/ });
    await expect(status).toHaveText(`${total} cameras`);

    // Needing attention first, each saying why beside its chip; the calm ones after.
    const names = page.getByRole('article').locator('h3');
    await expect(names).toHaveCount(total);
    const shownFirst = await names.evaluateAll(
      (headings, count) => headings.slice(0, count).map((heading) => heading.textContent),
      needing.length,
    );
    expect(shownFirst.sort()).toEqual(needing.map(nameOf).sort());
    for (const camera of needing) {
      await expect(card(page, nameOf(camera))).toContainText(camera.attention!);
    }
    await screensAtBothWidths(page, testInfo, 'finder-default');

    // By name, then by the SIM's last digits.
    const search = finder.getByRole('searchbox', { name: 'Find a camera' });
    await search.fill('tank');
    await expect(status).toHaveText(`1 of ${total} cameras`);
    await expect(page.getByRole('article')).toHaveCount(1);
    await expect(card(page, 'Fuel tank')).toBeVisible();
    const fuelTank = plans.cameras.find((camera) => camera.displayName === 'Fuel tank')!;
    await search.fill(fuelTank.SIM_ICCID.slice(-5));
    await expect(card(page, 'Fuel tank')).toBeVisible();
    await expect(page.getByRole('article')).toHaveCount(1);

    // A filter by state with its count, and an order, both kept through a reload.
    await search.fill('');
    const show = finder.getByRole('combobox', { name: 'Show' });
    await expect(show.locator('option[value="needs-attention"]')).toHaveText(
      `Needs attention (${needing.length})`,
    );
    await show.selectOption('needs-attention');
    await finder.getByRole('combobox', { name: 'Order' }).selectOption('name');
    await expect(status).toHaveText(`${needing.length} of ${total} cameras`);
    await expect(page).toHaveURL(/\/dashboard\?show=needs-attention&sort=name$/);
    await page.reload();
    await expect(status).toHaveText(`${needing.length} of ${total} cameras`);
    const byName = needing.map(nameOf).sort((a, b) => a.localeCompare(b, 'en-GB'));
    await expect(names).toHaveText(byName);
    await expect(show).toHaveValue('needs-attention');
    await screensAtBothWidths(page, testInfo, 'finder-needs-attention');

    // Nothing matches: one sentence and a way back to every camera, by keyboard.
    await search.fill('zzz');
    await expect(page.getByText('No camera matches “zzz” among “Needs attention”.')).toBeVisible();
    await expect(status).toHaveText(`0 of ${total} cameras`);
    await screensAtBothWidths(page, testInfo, 'finder-no-match');
    await page.getByRole('button', { name: `Show all ${total} cameras` }).focus();
    await page.keyboard.press('Enter');
    await expect(status).toHaveText(`${total} cameras`);
    await expect(page).toHaveURL(/\/dashboard\?sort=name$/);
    await expect(search).toHaveValue('');
  });
});

test.describe("a member's dashboard", () => {
  test("the demo team's vet sees cameras shared by the owner, without the owner's billing", async ({
    browser,
  }, testInfo) => {
    // The demo's vet: a Viewer of Top gate (demo data, read only).
    const vet = await openPersonContext(browser);
    try {
      await signInByEmail(vet.page, 'vet@example.com');
      const page = vet.page;
      await expect(
        page.getByRole('heading', { level: 1, name: 'Cameras shared by demo@example.com' }),
      ).toBeVisible();
      await expect(page).toHaveTitle(/^Cameras shared by demo@example.com/);
      await expect(page.getByRole('heading', { name: 'Shared cameras (1)' })).toBeVisible();
      await expect(page.getByRole('heading', { name: 'Data this month' })).toBeVisible();
      await expect(page.getByText(/your combined plan/)).toHaveCount(0);
      await expect(page.getByRole('heading', { name: 'Streaming Plans' })).toHaveCount(0);
      await expect(page.getByText('Billed Monthly')).toHaveCount(0);
      // One camera needs no search.
      await expect(page.getByRole('search')).toHaveCount(0);
      await screensAtBothWidths(page, testInfo, 'vet-dashboard');
      expect(vet.consoleErrors).toEqual([]);
    } finally {
      await vet.context.close();
    }
  });
});

test.describe('the activity table', () => {
  test('fits 1280 and 390 px whatever the entry, and says where in words', async ({
    page,
    signIn,
  }, testInfo) => {
    // A long "changed the access of …" entry: a member with a long address invited, changed and
    // removed again, so the demo team is as it was (the log keeps the entries, as it should).
    await openPortalAs(page, signIn, 'demo@example.com');
    const token = await page.evaluate(() => localStorage.getItem('token'));
    const asOwner = { headers: { authorization: `Bearer ${token}` } };
    const email = `a.very.long.address.for.the.contractor.${Date.now().toString(36)}@farm-contracting-services.example.com`;
    const invite = await page.request.post('/api/team/invite', {
      ...asOwner,
      data: { email, role: 'manager', allCameras: true, iccids: [], accessUntil: null },
    });
    expect(invite.status()).toBe(201);
    const memberId = ((await invite.json()) as { member: { id: string } }).member.id;
    try {
      const change = await page.request.post(`/api/team/members/${memberId}`, {
        ...asOwner,
        data: { role: 'viewer', allCameras: true, iccids: [], accessUntil: null },
      });
      expect(change.status()).toBe(200);
    } finally {
      await page.request.post(`/api/team/members/${memberId}/remove`, asOwner);
    }

    await page.goto('/activity');
    const table = page.getByRole('table', { name: 'Activity' });
    await expect(table.getByText(`Changed the access of ${email}`)).toBeVisible();
    // Where each entry came from is words, never an address.
    await expect(
      table
        .getByText(
          /A new network for them|A network they used before|A private network|The portal's own computer/,
        )
        .first(),
    ).toBeVisible();
    expect(await table.textContent()).not.toMatch(/\b\d{1,3}(\.\d{1,3}){3}\b/);
    await screensAtBothWidths(page, testInfo, 'activity-long-entry');
  });
});

test.describe('honest numbers', () => {
  test('the combined card says what it counts; the usage chart draws today as so far', async ({
    page,
    signIn,
  }, testInfo) => {
    await openPortalAs(page, signIn, 'demo@example.com');
    await page.goto('/dashboard');
    const combined = page
      .locator('section')
      .filter({ has: page.getByRole('heading', { name: 'Streaming Plans' }) });
    await expect(combined).toContainText(/Counts \d+ cameras? with a paid plan; not counted: /);
    // One rounding rule: shares to one decimal, GB to at most two.
    await expect(combined).toContainText(/\d+\.\d% of your combined plan remaining/);
    await expect(card(page, 'Farmyard')).toContainText(/\d+\.\d% of the 50 GB plan/);

    await card(page, 'Farmyard')
      .getByRole('link', { name: /^More info/ })
      .click();
    const summary = page.getByText(/ GB used from 1 \w{3} to \d+ \w{3} \(so far\)$/);
    await expect(summary).toBeVisible();
    // The Alerts card above loads on its own and grows: clicking before it has would miss.
    await expect(page.getByRole('button', { name: 'Save alerts' })).toBeVisible();
    await page.getByText('Daily figures').click();
    const rows = page.getByRole('table', { name: 'Data used per day, in GB' }).getByRole('row');
    await expect(rows.last()).toContainText('(so far)');
    await expect(rows.last()).toContainText(/^\d+ \w{3} \(so far\)\d+\.\d\d$/);
    await page
      .getByRole('img', { name: /Line chart of data used per day .* today so far/ })
      .scrollIntoViewIfNeeded();
    await screensAtBothWidths(page, testInfo, 'usage-so-far');
  });
});

interface DemoCamera {
  SIM_ICCID: string;
  displayName: string;
  findStates: string[];
  attention: string | null;
}

/** The server names each camera (decision 170). */
const nameOf = (camera: DemoCamera) => camera.displayName;
