import type { Page } from '@playwright/test';
import { staffPasswords } from '../fixtures/server.ts';
import {
  expect,
  expectAccessible,
  fillUkDate,
  test,
  ukDateOf,
  waitForMail,
} from '../fixtures/portal.ts';
import {
  dayInWords,
  openPersonContext,
  openWithToken,
  signInByEmail,
  tokenOf,
  ukDayPlus,
  waitForInvitation,
} from '../fixtures/team.ts';
import { cameraNamed, card, openPortalAs, screensAtBothWidths } from './dashboard-helpers.ts';

/**
 * Farm teams (issue 16, decisions 091-093), through the real e-mails: the owner invites a
 * contractor as Manager of one camera with a last day, the contractor joins from the invitation
 * e-mail, the owner makes them a Viewer and removes them (their session ends at once), the demo
 * team's vet signs in with the sign-in e-mail and sees one camera, and the owner reads all of it
 * on the Activity screen, staff marked as staff.
 *
 * Independent of the other files: the contractor is a new address each run, their camera is put
 * back as it was, and the vet only needs the demo data's "Top gate".
 */
const ownerEmail = 'demo@example.com';
const vetEmail = 'vet@example.com';
/** New each run (and each retry), so an earlier run's member never answers "already a member". */
const contractorEmail = `contractor.${Date.now().toString(36)}@example.com`;
/** The contractor's one camera: active, pausable, renamable (demo data). */
const contractorCamera = 'Farmyard';
const lastDay = ukDayPlus(30);

interface PlanCamera {
  SIM_ICCID: string;
  nicknameInDatabase: string | null;
  STRIPE_CUSTOMER_ID: string | null;
  cardState: string;
}

/** The cameras a session may see, as the dashboard reads them. */
async function camerasOf(page: Page, token: string): Promise<PlanCamera[]> {
  const response = await page.request.get('/api/cameras/plansV2', {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(response.status()).toBe(200);
  return ((await response.json()) as { cameras: PlanCamera[] }).cameras;
}

/** Who the frame says is signed in (the side bar on a wide screen). */
const signedIn = (page: Page) => page.getByRole('region', { name: 'Signed in' });
const mainNavigation = (page: Page) => page.getByRole('navigation', { name: 'Main' });
const memberItem = (page: Page, email: string) =>
  page.getByRole('list', { name: 'Members' }).getByRole('listitem', { name: email });

async function openTeam(page: Page) {
  await mainNavigation(page).getByRole('link', { name: 'Team' }).click();
  await expect(page).toHaveURL(/\/team$/);
  await expect(page.getByRole('heading', { name: 'Team', level: 1 })).toBeVisible();
  await expect(page.getByRole('list', { name: 'Members' })).toBeVisible();
}

/** What the journeys hand on to each other (serial: a later one needs the member made earlier). */
const shared: { contractorToken?: string; invitationLink?: string } = {};

test.describe.configure({ mode: 'serial' });

test.describe('farm team', () => {
  test('the owner invites a Manager of one camera with a last day; they join from the e-mail', async ({
    page,
    signIn,
    browser,
    consoleErrors,
  }, testInfo) => {
    await openPortalAs(page, signIn, ownerEmail);
    const ownerToken = await tokenOf(page);
    const farmyard = await cameraNamed<PlanCamera>(page, contractorCamera, ownerToken);
    await expect(card(page, contractorCamera)).toBeVisible();
    // An overdue camera (the demo data has some until the billing journeys pay them), whose
    // Pay now the owner sees and a Manager must not.
    const overdue = (await camerasOf(page, ownerToken)).find(
      (camera) => camera.cardState === 'overdue' && camera.nicknameInDatabase !== null,
    );
    if (overdue) {
      await expect(
        card(page, overdue.nicknameInDatabase!).getByRole('button', { name: /^Pay now/ }),
      ).toBeVisible();
    }
    const ownerSeesSetup =
      (await card(page, contractorCamera)
        .getByRole('link', { name: /^Setup Livestreaming/ })
        .count()) > 0;

    await expect(signedIn(page)).toContainText(ownerEmail);
    await expect(signedIn(page)).toContainText('Owner');
    await openTeam(page);
    await expect(page.getByText(`${ownerEmail} — Owner`)).toBeVisible();
    // The demo team's vet is there without setup.
    const vet = memberItem(page, vetEmail);
    await expect(vet).toContainText('Viewer');
    await expect(vet).toContainText('Top gate');
    await expect(vet).toContainText('Active');

    // A form sent empty says what is missing, in sentences.
    await page.getByRole('button', { name: 'Send invitation', exact: true }).click();
    await expect(page.getByText('Please enter a valid email')).toBeVisible();
    await expect(page.getByText('Choose at least one camera, or give all cameras.')).toBeVisible();

    await page.getByLabel('E-mail address').fill(contractorEmail);
    await page.getByRole('radio', { name: /^Manager/ }).check();
    await page.getByRole('radio', { name: 'Chosen cameras' }).check();
    await page
      .getByRole('list', { name: 'Chosen cameras' })
      .getByRole('checkbox', { name: new RegExp(`^${contractorCamera}`) })
      .check();
    await fillUkDate(page.getByRole('group', { name: 'Last day (optional)' }), lastDay);
    await screensAtBothWidths(page, testInfo, 'team-invite');

    const invitedAt = new Date(Date.now() - 1000);
    await page.getByRole('button', { name: 'Send invitation', exact: true }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Invitation sent' })).toHaveText(
      `Invitation sent to ${contractorEmail}.`,
    );
    const invited = memberItem(page, contractorEmail);
    await expect(invited).toContainText('Invited');
    await expect(invited).toContainText('Manager');
    await expect(invited).toContainText(contractorCamera);
    await expect(invited).toContainText(`End of ${dayInWords(lastDay)}`);
    await expect(invited).toContainText(/Link valid until/);
    await expect(invited.getByRole('button', { name: /^Resend invitation/ })).toBeVisible();
    // The form is empty again for the next person.
    await expect(page.getByLabel('E-mail address')).toHaveValue('');
    await screensAtBothWidths(page, testInfo, 'team');

    // Inviting the same address again is refused with a sentence.
    await page.getByLabel('E-mail address').fill(contractorEmail);
    await page.getByRole('radio', { name: 'All cameras, including ones added later' }).check();
    await page.getByRole('button', { name: 'Send invitation', exact: true }).click();
    await expect(page.getByRole('alert')).toHaveText(
      `${contractorEmail} is already on your team. Change their role or cameras in the list instead.`,
    );
    await page.getByLabel('E-mail address').fill('');

    // The e-mail: who invites, as what, which camera, until when, and the link.
    const { message, link } = await waitForInvitation(page.request, contractorEmail, invitedAt);
    expect(message.subject).toBe(`${ownerEmail} invited you to their Farmcam cameras`);
    expect(message.text).toContain('as a Manager');
    expect(message.text).toContain(`the camera ${contractorCamera}`);
    expect(message.text).toContain(`until the end of ${dayInWords(lastDay)}`);
    expect(link).toMatch(/\/invitation\?token=/);
    shared.invitationLink = link;

    // The contractor, at their own browser, opens the link and is signed in.
    const contractor = await openPersonContext(browser);
    const member = contractor.page;
    await member.goto(link);
    await expect(member).toHaveURL(/\/dashboard$/);
    await expect(member.getByText('Welcome: you have joined the team')).toBeVisible();
    await expect(member.getByRole('heading', { name: 'Shared cameras (1)' })).toBeVisible();
    await expect(member.getByRole('article')).toHaveCount(1);
    const memberCard = card(member, contractorCamera);
    await expect(memberCard).toBeVisible();
    await expect(signedIn(member)).toContainText(contractorEmail);
    await expect(signedIn(member)).toContainText(`Manager on the account of ${ownerEmail}`);

    // A Manager changes cameras, never money or the team.
    const navigation = mainNavigation(member);
    // Their first page is someone else's cameras, not an account of theirs (decision 170).
    await expect(navigation.getByRole('link', { name: 'Shared cameras' })).toBeVisible();
    await expect(navigation.getByRole('link', { name: 'Account' })).toHaveCount(0);
    await expect(navigation.getByRole('link', { name: /Livestreaming/ })).toBeVisible();
    for (const hidden of ['Team', 'Activity', 'Activate']) {
      await expect(navigation.getByRole('link', { name: hidden, exact: true })).toHaveCount(0);
    }
    await expect(
      memberCard.getByRole('button', { name: `Edit name of ${contractorCamera}` }),
    ).toBeVisible();
    await expect(memberCard.getByRole('button', { name: /^Pause subscription/ })).toBeVisible();
    await expect(memberCard.getByRole('link', { name: /^Manage plan/ })).toBeVisible();
    await expect(memberCard.getByRole('link', { name: /^Invoices/ })).toHaveCount(0);
    await expect(member.getByRole('button', { name: /^Pay now/ })).toHaveCount(0);
    await expect(member.getByRole('link', { name: 'Activate a camera' })).toHaveCount(0);
    await expect(memberCard.getByRole('link', { name: /^Setup Livestreaming/ })).toHaveCount(
      ownerSeesSetup ? 1 : 0,
    );
    await screensAtBothWidths(member, testInfo, 'manager-dashboard');

    // A Manager may set up livestreams.
    await mainNavigation(member)
      .getByRole('link', { name: /Livestreaming/ })
      .click();
    await expect(member.getByRole('link', { name: 'Set Up Livestream' }).first()).toBeVisible();
    await mainNavigation(member).getByRole('link', { name: 'Shared cameras' }).click();
    await expect(memberCard).toBeVisible();

    // On a phone the person and role are in the menu.
    await member.setViewportSize({ width: 390, height: 844 });
    await member.getByRole('button', { name: 'Menu' }).click();
    const menu = member.getByRole('navigation', { name: 'Main menu' });
    await expect(menu.getByRole('link', { name: 'Team', exact: true })).toHaveCount(0);
    const menuPerson = menu.getByRole('region', { name: 'Signed in' });
    await expect(menuPerson).toContainText(contractorEmail);
    await expect(menuPerson).toContainText(`Manager on the account of ${ownerEmail}`);
    await expectAccessible(member);
    await member.screenshot({ path: testInfo.outputPath('manager-menu-390.png'), fullPage: true });
    await member.keyboard.press('Escape');
    await member.setViewportSize({ width: 1280, height: 800 });

    // Rename works (and is put back for the other journeys).
    const renamed = `${contractorCamera} (contractor)`;
    await memberCard.getByRole('button', { name: `Edit name of ${contractorCamera}` }).click();
    const renameDialog = member.getByRole('dialog', { name: 'Update camera name' });
    await renameDialog.getByRole('textbox', { name: 'Camera name' }).fill(renamed);
    await renameDialog.getByRole('button', { name: 'Update' }).click();
    await expect(member.getByText('Camera name updated successfully')).toBeVisible();
    await expect(card(member, renamed)).toBeVisible();
    await card(member, renamed)
      .getByRole('button', { name: `Edit name of ${renamed}` })
      .click();
    await renameDialog.getByRole('textbox', { name: 'Camera name' }).fill(contractorCamera);
    await renameDialog.getByRole('button', { name: 'Update' }).click();
    await expect(card(member, contractorCamera)).toBeVisible();

    // Manage plan: the plans and the pause, no payment methods or payment details.
    await card(member, contractorCamera)
      .getByRole('link', { name: /^Manage plan/ })
      .click();
    await expect(member).toHaveURL(/\/subscription\/cus_/);
    await expect(member.getByRole('heading', { name: 'Available Plans' })).toBeVisible();
    await expect(member.getByRole('button', { name: 'Pause subscription' })).toBeVisible();
    await expect(member.getByRole('heading', { name: 'Payment methods' })).toHaveCount(0);
    await expect(member.getByRole('button', { name: 'Update payment details' })).toHaveCount(0);
    await expectAccessible(member);

    // What the screens hide, the server refuses.
    const contractorToken = await tokenOf(member);
    shared.contractorToken = contractorToken;
    const asContractor = { headers: { authorization: `Bearer ${contractorToken}` } };
    const topGate = await cameraNamed<PlanCamera>(page, 'Top gate', ownerToken);
    const refusals = {
      paymentMethods: (
        await member.request.get(
          `/api/billing/all-payment-methods/${farmyard.STRIPE_CUSTOMER_ID}`,
          asContractor,
        )
      ).status(),
      team: (await member.request.get('/api/team', asContractor)).status(),
      activity: (await member.request.get('/api/activity', asContractor)).status(),
      renameAnotherCamera: (
        await member.request.post('/api/cameras/update-nickname', {
          ...asContractor,
          data: { simIccid: topGate.SIM_ICCID, nickname: 'Not yours' },
        })
      ).status(),
      simInfoOfAnotherCamera: (
        await member.request.get(`/api/cameras/sim-info/${topGate.SIM_ICCID}`, asContractor)
      ).status(),
    };
    expect(refusals).toEqual({
      paymentMethods: 403,
      team: 403,
      activity: 403,
      renameAnotherCamera: 404,
      simInfoOfAnotherCamera: 404,
    });
    // The list of cameras holds only theirs.
    expect((await camerasOf(member, contractorToken)).map((camera) => camera.SIM_ICCID)).toEqual([
      farmyard.SIM_ICCID,
    ]);

    // The owner's Team screen now says they joined.
    await page.reload();
    await expect(memberItem(page, contractorEmail)).toContainText('Active');

    // Given an overdue camera too, the Manager sees its state but not Pay now.
    if (overdue) {
      const overdueName = overdue.nicknameInDatabase!;
      const changeCameras = async (check: boolean) => {
        await memberItem(page, contractorEmail)
          .getByRole('button', { name: /^Change access/ })
          .click();
        const dialog = page.getByRole('dialog', { name: `Change access of ${contractorEmail}` });
        await dialog
          .getByRole('checkbox', { name: new RegExp(`^${overdueName}`) })
          .setChecked(check);
        await dialog.getByRole('button', { name: 'Save' }).click();
        await expect(dialog).toBeHidden();
      };
      await changeCameras(true);
      await expect(memberItem(page, contractorEmail)).toContainText(
        `${contractorCamera}, ${overdueName}`,
      );
      await member.goto('/dashboard');
      await expect(member.getByRole('heading', { name: 'Shared cameras (2)' })).toBeVisible();
      const overdueCard = card(member, overdueName);
      await expect(overdueCard).toContainText('Overdue payments on account');
      await expect(overdueCard.getByRole('button', { name: /^Pay now/ })).toHaveCount(0);
      await expect(overdueCard.getByRole('link', { name: /^Invoices/ })).toHaveCount(0);
      await changeCameras(false);
      await member.goto('/dashboard');
      await expect(member.getByRole('heading', { name: 'Shared cameras (1)' })).toBeVisible();
    } else {
      testInfo.annotations.push({
        type: 'note',
        description: 'No overdue camera left in the demo data: Pay now was not checked.',
      });
    }
    await expect(
      memberItem(page, contractorEmail).getByRole('button', { name: /^Resend invitation/ }),
    ).toHaveCount(0);

    expect(contractor.consoleErrors).toEqual([]);
    // The one the browser logs for the refused second invitation, and nothing else.
    expect(consoleErrors).toEqual([
      'Failed to load resource: the server responded with a status of 409 (Conflict)',
    ]);
    await contractor.context.close();
  });

  test('the vet signs in with the sign-in e-mail and only watches Top gate', async ({
    page,
    browser,
    consoleErrors,
  }, testInfo) => {
    const requestedAt = new Date(Date.now() - 1000);
    await signInByEmail(page, vetEmail);
    // The e-mail names whose account the link opens and as what.
    const mail = await waitForMail(page.request, vetEmail, requestedAt);
    expect(mail.text).toContain(`Sign in to ${ownerEmail}'s account (Viewer)`);

    await expect(page.getByRole('heading', { name: 'Shared cameras (1)' })).toBeVisible();
    await expect(page.getByRole('article')).toHaveCount(1);
    const topGate = card(page, 'Top gate');
    await expect(topGate).toBeVisible();
    await expect(topGate).toContainText(/SIM 894411\d{13}/);
    await expect(topGate).toContainText(/\d GB/);
    await expect(signedIn(page)).toContainText(vetEmail);
    await expect(signedIn(page)).toContainText(`Viewer on the account of ${ownerEmail}`);

    // A Viewer changes nothing: no rename, pause, plan switch, livestream setup, billing, team.
    await expect(topGate.getByRole('button', { name: /^Edit name of/ })).toHaveCount(0);
    await expect(page.getByRole('button', { name: /^Pause subscription/ })).toHaveCount(0);
    await expect(page.getByRole('button', { name: /^Cancel Scheduled Pause/ })).toHaveCount(0);
    await expect(page.getByRole('button', { name: /^Pay now/ })).toHaveCount(0);
    await expect(topGate.getByRole('link', { name: /^Manage plan/ })).toHaveCount(0);
    await expect(topGate.getByRole('link', { name: /^Invoices/ })).toHaveCount(0);
    await expect(topGate.getByRole('link', { name: /^Renew subscription/ })).toHaveCount(0);
    await expect(topGate.getByRole('link', { name: /^Setup Livestreaming/ })).toHaveCount(0);
    await expect(topGate.getByRole('link', { name: /^More info/ })).toBeVisible();
    const navigation = mainNavigation(page);
    for (const hidden of ['Team', 'Activity', 'Activate']) {
      await expect(navigation.getByRole('link', { name: hidden, exact: true })).toHaveCount(0);
    }
    await screensAtBothWidths(page, testInfo, 'viewer-dashboard');

    // The camera's details and usage are theirs to see.
    await topGate.getByRole('link', { name: /^More info/ }).click();
    await expect(page.getByRole('heading', { name: 'Camera details' })).toBeVisible();
    // The chart loads when it comes near the screen (decision 083), below the live view's card:
    // scroll to it as a farmer would.
    await page.getByRole('heading', { name: 'Overview' }).scrollIntoViewIfNeeded();
    await expect(page.getByRole('img', { name: /Line chart of data used per day/ })).toBeVisible();

    // Livestreaming: a Viewer watches; no setting up, switching or editing.
    await mainNavigation(page)
      .getByRole('link', { name: /Livestreaming/ })
      .click();
    await expect(page).toHaveURL(/\/livestreaming$/);
    await expect(page.getByRole('heading', { name: 'Benefits' })).toBeVisible();
    await expect(page.getByRole('link', { name: 'Set Up Livestream' })).toHaveCount(0);
    await expect(page.getByRole('button', { name: /^Switch (on|off)/ })).toHaveCount(0);
    await expect(page.getByRole('link', { name: /^Edit schedule/ })).toHaveCount(0);
    await expectAccessible(page);

    // An owner's page opened by its address says it is the owner's, and fetches nothing.
    await page.goto('/team');
    await expect(
      page.getByText('Only the account owner can see and change who has access to this account.'),
    ).toBeVisible();
    await page.goto('/activity');
    await expect(
      page.getByText('Only the account owner can read the account’s activity.'),
    ).toBeVisible();

    // What the screens hide, the server refuses, with the page's own token.
    const token = await tokenOf(page);
    const asVet = { headers: { authorization: `Bearer ${token}` } };
    const [own] = await camerasOf(page, token);
    expect(own?.nicknameInDatabase).toBe('Top gate');
    const owner = await openPersonContext(browser);
    await signInByEmail(owner.page, ownerEmail);
    const farmyard = await cameraNamed<PlanCamera>(
      owner.page,
      contractorCamera,
      await tokenOf(owner.page),
    );
    await owner.context.close();

    const answers = {
      renameOwnCamera: (
        await page.request.post('/api/cameras/update-nickname', {
          ...asVet,
          data: { simIccid: own!.SIM_ICCID, nickname: 'Renamed by the vet' },
        })
      ).status(),
      renameAnotherCamera: (
        await page.request.post('/api/cameras/update-nickname', {
          ...asVet,
          data: { simIccid: farmyard.SIM_ICCID, nickname: 'Renamed by the vet' },
        })
      ).status(),
      simInfoOwnCamera: (
        await page.request.get(`/api/cameras/sim-info/${own!.SIM_ICCID}`, asVet)
      ).status(),
      simInfoOfAnotherCamera: (
        await page.request.get(`/api/cameras/sim-info/${farmyard.SIM_ICCID}`, asVet)
      ).status(),
      paymentMethods: (
        await page.request.get(`/api/billing/all-payment-methods/${own!.STRIPE_CUSTOMER_ID}`, asVet)
      ).status(),
      changePlan: (
        await page.request.post('/api/subscriptions/change-plan', {
          ...asVet,
          data: { customerId: own!.STRIPE_CUSTOMER_ID, newPlanId: 'price_anything' },
        })
      ).status(),
      team: (await page.request.get('/api/team', asVet)).status(),
      invite: (
        await page.request.post('/api/team/invite', {
          ...asVet,
          data: { email: 'friend@example.com', role: 'manager', allCameras: true, iccids: [] },
        })
      ).status(),
    };
    expect(answers).toEqual({
      renameOwnCamera: 403,
      // A Viewer may rename nothing, so the camera is not even looked at (no hint it exists).
      renameAnotherCamera: 403,
      simInfoOwnCamera: 200,
      simInfoOfAnotherCamera: 404,
      paymentMethods: 403,
      changePlan: 403,
      team: 403,
      invite: 403,
    });
    await page.goto('/dashboard');
    await expect(card(page, 'Top gate')).toBeVisible();
    expect(consoleErrors).toEqual([]);
  });

  test('the owner makes the Manager a Viewer, then removes them: their session ends at once', async ({
    page,
    signIn,
    browser,
    consoleErrors,
  }, testInfo) => {
    // The second half of the first journey's story (serial): run with it, not alone.
    expect(shared.contractorToken, 'the member the first journey invited').toBeDefined();
    const contractor = await openPersonContext(browser);
    const member = contractor.page;
    await openWithToken(member, shared.contractorToken!);
    await expect(signedIn(member)).toContainText(`Manager on the account of ${ownerEmail}`);
    await expect(
      card(member, contractorCamera).getByRole('button', { name: /^Edit name of/ }),
    ).toBeVisible();

    await openPortalAs(page, signIn, ownerEmail);
    await openTeam(page);
    const item = memberItem(page, contractorEmail);
    await item.getByRole('button', { name: /^Change access/ }).click();
    const dialog = page.getByRole('dialog', { name: `Change access of ${contractorEmail}` });
    await expect(dialog.getByRole('radio', { name: /^Manager/ })).toBeChecked();
    expect(await ukDateOf(dialog.getByRole('group', { name: 'Last day (optional)' }))).toBe(
      lastDay,
    );
    await dialog.getByRole('radio', { name: /^Viewer/ }).check();
    await expectAccessible(page);
    await page.screenshot({ path: testInfo.outputPath('team-change-1280.png') });
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect(dialog).toBeHidden();
    await expect(page.getByRole('status').filter({ hasText: 'changed' })).toHaveText(
      `Access of ${contractorEmail} changed.`,
    );
    await expect(item).toContainText('Viewer');

    // The member's next page load shows the Viewer's portal (moving on inside the page without
    // loading it: the last journey of this file).
    await member.reload();
    await expect(member).toHaveURL(/\/dashboard$/);
    await expect(signedIn(member)).toContainText(`Viewer on the account of ${ownerEmail}`);
    await expect(
      card(member, contractorCamera).getByRole('button', { name: /^Edit name of/ }),
    ).toHaveCount(0);
    await expect(
      card(member, contractorCamera).getByRole('button', { name: /^Pause subscription/ }),
    ).toHaveCount(0);
    // And the server agrees at once.
    const asContractor = { headers: { authorization: `Bearer ${shared.contractorToken}` } };
    const farmyard = (await camerasOf(member, shared.contractorToken!))[0]!;
    expect(
      (
        await member.request.post('/api/cameras/update-nickname', {
          ...asContractor,
          data: { simIccid: farmyard.SIM_ICCID, nickname: 'Renamed by a viewer' },
        })
      ).status(),
    ).toBe(403);
    expect(contractor.consoleErrors).toEqual([]);

    // Removed: signed out everywhere at once.
    await item.getByRole('button', { name: /^Remove/ }).click();
    const confirm = page.getByRole('dialog', { name: 'Remove from the team' });
    await expect(confirm).toContainText(
      `Remove ${contractorEmail}? They will be signed out at once.`,
    );
    await expectAccessible(page);
    await confirm.getByRole('button', { name: 'Remove', exact: true }).click();
    await expect(confirm).toBeHidden();
    await expect(page.getByRole('status').filter({ hasText: 'removed' })).toHaveText(
      `${contractorEmail} was removed and signed out.`,
    );
    await expect(memberItem(page, contractorEmail)).toHaveCount(0);
    await expect(memberItem(page, vetEmail)).toBeVisible();

    expect((await member.request.get('/api/auth/user-data', asContractor)).status()).toBe(401);
    // Their next step in the portal lands on the sign-in page.
    await mainNavigation(member)
      .getByRole('link', { name: /Livestreaming/ })
      .click();
    await expect(member).toHaveURL(/\/$/);
    await expect(member.getByRole('button', { name: 'Send login link' })).toBeVisible();
    expect(await member.evaluate(() => localStorage.getItem('token'))).toBeNull();
    // The used invitation does not let them back in.
    await member.goto(shared.invitationLink!);
    await expect(member.getByRole('alert')).toHaveText(
      'This invitation was withdrawn by the account owner. Ask them to invite you again.',
    );
    await expect(member.getByRole('link', { name: 'Get a sign-in link' })).toBeVisible();
    await expect(member).toHaveURL(/\/invitation\?token=/);
    await expectAccessible(member);
    await member.screenshot({ path: testInfo.outputPath('invitation-used-1280.png') });
    await contractor.context.close();
    expect(consoleErrors).toEqual([]);
  });

  test('the owner reads the Activity: the team’s changes and sign-ins, staff marked as staff', async ({
    page,
    signIn,
    browser,
    consoleErrors,
  }, testInfo) => {
    // Staff open the demo portal to help (and close it).
    const staff = await openPersonContext(browser);
    await staff.page.goto('/team-login');
    await staff.page.getByLabel('E-mail address').fill('team@example.com');
    await staff.page.getByLabel('Password').fill(staffPasswords.team);
    await staff.page.getByRole('button', { name: /sign in/i }).click();
    await expect(staff.page).toHaveURL(/\/staff$/);
    await staff.page.getByLabel('Search customers').fill('demo@');
    await staff.page
      .getByRole('row', { name: /demo@example\.com/ })
      .getByRole('button', { name: /Open portal as this customer/ })
      .click();
    await expect(staff.page).toHaveURL(/\/dashboard$/);
    const banner = staff.page.getByRole('region', { name: 'Staff view' });
    await expect(banner).toContainText(ownerEmail);
    await banner.getByRole('button', { name: /Back to staff/ }).click();
    await expect(staff.page).toHaveURL(/\/staff$/);
    await staff.context.close();

    await openPortalAs(page, signIn, ownerEmail);
    const ownerToken = await tokenOf(page);
    await mainNavigation(page).getByRole('link', { name: 'Activity' }).click();
    await expect(page).toHaveURL(/\/activity$/);
    await expect(page.getByRole('heading', { name: 'Activity', level: 1 })).toBeVisible();
    const table = page.getByRole('table', { name: 'Activity' });
    const row = (text: string | RegExp) => table.getByRole('row').filter({ hasText: text });

    await expect(row('Farmcam staff opened your portal to help').first()).toContainText('Staff');
    await expect(row('Farmcam staff opened your portal to help').first()).toContainText(
      'team@example.com',
    );

    // The team's story, newest first, each entry with who did it.
    const removed = row(`Removed ${contractorEmail} from the team`);
    const changed = row(`Changed the access of ${contractorEmail} to Viewer`);
    // This run's contractor: a retried run leaves the first attempt's contractor in the log.
    const renamedBack = row(
      `Renamed "${contractorCamera} (contractor)" to "${contractorCamera}"`,
    ).filter({ hasText: contractorEmail });
    const joined = row(`${contractorEmail} accepted the invitation and joined the team`);
    const invited = row(`Invited ${contractorEmail} as Manager`);
    await expect(removed).toContainText(ownerEmail);
    await expect(removed).toContainText('Owner');
    await expect(changed).toContainText(ownerEmail);
    await expect(renamedBack).toContainText(contractorEmail);
    await expect(renamedBack).toContainText(contractorCamera);
    // The role they had when they renamed it, not the Viewer they were made later.
    await expect(renamedBack).toContainText('Manager');
    await expect(joined).toHaveCount(1);
    await expect(invited).toContainText(ownerEmail);
    const vetSignIn = table
      .getByRole('row')
      .filter({ hasText: 'Signed in' })
      .filter({ hasText: vetEmail });
    await expect(vetSignIn.first()).toContainText('Viewer');
    await screensAtBothWidths(page, testInfo, 'activity');

    // Filter by category: only the team's entries (kept in the address, so it can be shared).
    await page.getByLabel('What').selectOption({ label: 'Team' });
    await expect(page).toHaveURL(/[?&]category=team/);
    await expect(invited).toBeVisible();
    await expect(table.getByRole('row').filter({ hasText: 'Signed in' })).toHaveCount(0);
    await expect(table.getByRole('row').filter({ hasText: 'Staff' })).toHaveCount(0);
    await screensAtBothWidths(page, testInfo, 'activity-team');
    await page.getByLabel('What').selectOption({ label: 'Staff' });
    await expect(row('Farmcam staff opened your portal to help').first()).toBeVisible();
    await expect(invited).toHaveCount(0);
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await expect(page).toHaveURL(/\/activity$/);

    // Paging: make sure there is more than a page (25), with changes that are put back.
    const all = await page.request.get('/api/activity?limit=100', {
      headers: { authorization: `Bearer ${ownerToken}` },
    });
    expect(all.status()).toBe(200);
    const { entries } = (await all.json()) as { entries: unknown[] };
    const farmyard = await cameraNamed<PlanCamera>(page, contractorCamera, ownerToken);
    for (let index = entries.length; index <= 26; index += 2) {
      for (const nickname of [`${contractorCamera} ${index}`, contractorCamera]) {
        const response = await page.request.post('/api/cameras/update-nickname', {
          headers: { authorization: `Bearer ${ownerToken}` },
          data: { simIccid: farmyard.SIM_ICCID, nickname },
        });
        expect(response.status()).toBe(200);
      }
    }
    await page.reload();
    const status = page.getByRole('status').filter({ hasText: /^Showing/ });
    await expect(status).toHaveText('Showing 25 entries; more can be loaded.');
    await expect(table.getByRole('row')).toHaveCount(26); // the header and 25 entries
    await page.getByRole('button', { name: 'Load more' }).click();
    await expect(status).toHaveText(/^Showing (2[6-9]|[3-9]\d) entries/);
    expect(await table.getByRole('row').count()).toBeGreaterThan(26);
    await expectAccessible(page);
    expect(consoleErrors).toEqual([]);
  });
  test('a member moving on in the portal after a role change sees the new role at once', async ({
    page,
    signIn,
    browser,
  }) => {
    // Each move to another page asks the server again what the person may do, and a changed
    // access reloads the camera list (decision 093).
    await openPortalAs(page, signIn, ownerEmail);
    const ownerToken = await tokenOf(page);
    const asOwner = { headers: { authorization: `Bearer ${ownerToken}` } };
    const farmyard = await cameraNamed<PlanCamera>(page, contractorCamera, ownerToken);
    const access = { allCameras: false, iccids: [farmyard.SIM_ICCID], accessUntil: null };
    const email = `manager.${Date.now().toString(36)}@example.com`;
    const invitedAt = new Date(Date.now() - 1000);
    const invite = await page.request.post('/api/team/invite', {
      ...asOwner,
      data: { email, role: 'manager', ...access },
    });
    expect(invite.status()).toBe(201);
    const memberId = ((await invite.json()) as { member: { id: string } }).member.id;
    const { link } = await waitForInvitation(page.request, email, invitedAt);
    const person = await openPersonContext(browser);
    try {
      await person.page.goto(link);
      await expect(signedIn(person.page)).toContainText(`Manager on the account of ${ownerEmail}`);
      await expect(person.page.getByRole('button', { name: /^Edit name of/ })).toHaveCount(1);

      const change = await page.request.post(`/api/team/members/${memberId}`, {
        ...asOwner,
        data: { role: 'viewer', ...access },
      });
      expect(change.status()).toBe(200);

      await mainNavigation(person.page)
        .getByRole('link', { name: /Livestreaming/ })
        .click();
      await expect(person.page).toHaveURL(/\/livestreaming$/);
      await mainNavigation(person.page).getByRole('link', { name: 'Shared cameras' }).click();
      await expect(person.page).toHaveURL(/\/dashboard$/);
      await expect(signedIn(person.page)).toContainText(`Viewer on the account of ${ownerEmail}`, {
        timeout: 5000,
      });
      await expect(person.page.getByRole('button', { name: /^Edit name of/ })).toHaveCount(0);
      await expect(person.page.getByRole('button', { name: /^Pause subscription/ })).toHaveCount(0);
    } finally {
      await person.context.close();
      await page.request.post(`/api/team/members/${memberId}/remove`, asOwner);
    }
  });
  test('an activity entry names the role the person had when they acted', async ({
    page,
    signIn,
    browser,
  }) => {
    // The audit entry keeps the role it was written with (audit_log.actor_role, decision 092): a
    // member's renames made as a Manager still read Manager after the owner made them a Viewer.
    await openPortalAs(page, signIn, ownerEmail);
    const asOwner = { headers: { authorization: `Bearer ${await tokenOf(page)}` } };
    const farmyard = await cameraNamed<PlanCamera>(page, contractorCamera, await tokenOf(page));
    const access = { allCameras: false, iccids: [farmyard.SIM_ICCID], accessUntil: null };
    const email = `herd.${Date.now().toString(36)}@example.com`;
    const invitedAt = new Date(Date.now() - 1000);
    const invite = await page.request.post('/api/team/invite', {
      ...asOwner,
      data: { email, role: 'manager', ...access },
    });
    expect(invite.status()).toBe(201);
    const memberId = ((await invite.json()) as { member: { id: string } }).member.id;
    const { link } = await waitForInvitation(page.request, email, invitedAt);
    const person = await openPersonContext(browser);
    try {
      await person.page.goto(link);
      await expect(signedIn(person.page)).toContainText(`Manager on the account of ${ownerEmail}`);
      const asMember = { headers: { authorization: `Bearer ${await tokenOf(person.page)}` } };
      for (const nickname of [`${contractorCamera} (herd)`, contractorCamera]) {
        const renamed = await person.page.request.post('/api/cameras/update-nickname', {
          ...asMember,
          data: { simIccid: farmyard.SIM_ICCID, nickname },
        });
        expect(renamed.status()).toBe(200);
      }
      const change = await page.request.post(`/api/team/members/${memberId}`, {
        ...asOwner,
        data: { role: 'viewer', ...access },
      });
      expect(change.status()).toBe(200);

      const response = await page.request.get(
        `/api/activity?category=cameras&actor=${encodeURIComponent(email)}`,
        asOwner,
      );
      expect(response.status()).toBe(200);
      const { entries } = (await response.json()) as {
        entries: { summary: string; actor: { kind: string } }[];
      };
      const renames = entries.filter((entry) => entry.summary.startsWith('Renamed'));
      expect(renames).toHaveLength(2);
      expect(renames.map((entry) => entry.actor.kind)).toEqual(['manager', 'manager']);
    } finally {
      await person.context.close();
      await page.request.post(`/api/team/members/${memberId}/remove`, asOwner);
    }
  });
});
