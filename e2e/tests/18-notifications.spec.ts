import type { Browser, Page } from '@playwright/test';
import { startFakePushService } from '../../apps/server/test/fakes/fake-push-service.ts';
import { pushServiceTls } from '../playwright.config.ts';
import { expect, test } from '../fixtures/portal.ts';
import { signInByEmail, waitForInvitation } from '../fixtures/team.ts';
import { cameraNamed, openPortalAs, screensAtBothWidths } from './dashboard-helpers.ts';

/**
 * A person's Notifications page on a phone (issue 25 items 5-7, decisions 122-124): someone
 * invited by the demo's second customer as a Viewer of Stable yard signs in on a 390 px phone,
 * opens Notifications from the menu, chooses push and text for silence alerts, checks their
 * mobile number with the six-digit code read from /dev/sms and turns on push in this browser.
 * Stable yard then goes silent: the server's push reaches a push service of the journey's own,
 * which checks its VAPID signature and decrypts it (RFC 8291), and is handed to Chromium's
 * service worker, which shows it; a tap opens the camera. The text arrives at /dev/sms too.
 *
 * What this proves and what it cannot, offline (decision 123): headless Chromium cannot reach
 * its own push service (FCM), so the page's PushManager is given the journey's push service's
 * endpoint and keys instead of Chromium's; the push the server sent is delivered to the worker
 * through DevTools (ServiceWorker.deliverPushMessage, DevTools' own "Push" button), and the tap
 * is a notificationclick dispatched in the worker (headless Chromium shows nothing to tap).
 */
const ownerEmail = 'second@example.com';
const cameraName = 'Stable yard';
const phoneViewport = { width: 390, height: 844 };

interface PlanCamera {
  SIM_ICCID: string;
  nicknameInDatabase: string | null;
}

interface LocalText {
  to: string;
  body: string;
  direction: 'outbound' | 'inbound';
  createdAt: string;
}

/** The newest local text to `to` whose body matches `pattern`, once it has arrived. */
async function waitForText(page: Page, to: string, pattern: RegExp): Promise<RegExpMatchArray> {
  let found: RegExpMatchArray | null = null;
  await expect
    .poll(
      async () => {
        const texts = (await (await page.request.get('/dev/sms.json')).json()) as LocalText[];
        const text = texts.find(
          (message) =>
            message.direction === 'outbound' && message.to === to && pattern.test(message.body),
        );
        found = text ? text.body.match(pattern) : null;
        return found !== null;
      },
      { message: `a text to ${to} matching ${pattern}` },
    )
    .toBe(true);
  return found!;
}

/** A phone's browser for the invited person: its own storage and client address. */
async function openPhone(browser: Browser, baseURL: string) {
  const context = await browser.newContext({
    baseURL,
    viewport: phoneViewport,
    isMobile: true,
    hasTouch: true,
    extraHTTPHeaders: { 'x-forwarded-for': '198.51.100.218' },
  });
  await context.grantPermissions(['notifications'], { origin: new URL(baseURL).origin });
  const page = await context.newPage();
  const consoleErrors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => consoleErrors.push(error.message));
  return { context, page, consoleErrors };
}

/** Interactive things in the page's main area less than 44 px high at this width. */
const smallTargets = (page: Page) =>
  page.evaluate(() =>
    Array.from(
      document.querySelectorAll<HTMLElement>(
        'main button, main a, main input:not([type=checkbox]), main label:has(input[type=checkbox])',
      ),
    )
      .filter((element) => element.getClientRects().length > 0)
      .map((element) => ({
        what: `${element.tagName} ${(element.getAttribute('aria-label') ?? element.textContent ?? '').trim().slice(0, 40)}`,
        html: element.outerHTML.slice(0, 200),
        // Its layout height: a toast sliding in is scaled for a moment, not smaller.
        height: element.offsetHeight,
      }))
      .filter((target) => target.height < 44),
  );

test.describe.configure({ mode: 'serial' });

test('a person chooses push and text, checks their phone, and a silent camera reaches both; a tap opens it', async ({
  page,
  browser,
  baseURL,
  signIn,
  consoleErrors,
}, testInfo) => {
  test.setTimeout(180_000);
  const pushService = await startFakePushService({ tls: pushServiceTls });
  const subscription = pushService.subscribe();
  const run = Date.now().toString(36);
  const personEmail = `notify-${run}@example.com`;
  // A UK mobile of Ofcom's drama range, one per run.
  const mobile = `07700 900${String(Date.now() % 1000).padStart(3, '0')}`;
  const mobileE164 = `+44${mobile.replace(/\s/g, '').slice(1)}`;

  // The owner invites the person as a Viewer of one camera (their own setup, through the API).
  await openPortalAs(page, signIn, ownerEmail);
  const ownerToken = (await page.evaluate(() => localStorage.getItem('token')))!;
  const camera = await cameraNamed<PlanCamera>(page, cameraName);
  const cameraPath = `/camera/${camera.SIM_ICCID}`;
  const invitedAt = new Date(Date.now() - 1000);
  const invited = await page.request.post('/api/team/invite', {
    headers: { authorization: `Bearer ${ownerToken}` },
    data: { email: personEmail, role: 'viewer', allCameras: false, iccids: [camera.SIM_ICCID] },
  });
  expect(invited.status()).toBe(201);
  const { link } = await waitForInvitation(page.request, personEmail, invitedAt);
  const accepted = await page.request.post('/api/team/accept-invitation', {
    data: { token: new URL(link).searchParams.get('token') },
  });
  expect(accepted.status()).toBe(200);

  const phone = await openPhone(browser, baseURL!);
  // This browser's push subscription is the journey's push service's (Chromium's own, FCM, is
  // out of reach offline): what pushManager.subscribe() and getSubscription() give the page.
  await phone.context.addInitScript((fake) => {
    let isSubscribed = false;
    const made = {
      endpoint: fake.endpoint,
      expirationTime: null,
      toJSON: () => ({ endpoint: fake.endpoint, expirationTime: null, keys: fake.keys }),
      unsubscribe: async () => {
        isSubscribed = false;
        return true;
      },
    };
    PushManager.prototype.subscribe = async function () {
      isSubscribed = true;
      return made as unknown as PushSubscription;
    };
    PushManager.prototype.getSubscription = async function () {
      return isSubscribed ? (made as unknown as PushSubscription) : null;
    };
  }, subscription);
  const person = phone.page;
  const silencePath = `/dev/cameras/${camera.SIM_ICCID}/silence`;
  try {
    // Signed in through the real sign-in form and the e-mailed link.
    await signInByEmail(person, personEmail);

    // Notifications, from the phone's menu.
    await person.getByRole('button', { name: 'Menu' }).click();
    await person
      .getByRole('navigation', { name: 'Main menu' })
      .getByRole('link', { name: 'Notifications' })
      .click();
    await expect(person).toHaveURL(/\/notifications$/);
    await expect(person.getByRole('heading', { name: 'Notifications', level: 1 })).toBeVisible();
    const choices = person.getByRole('form', { name: 'How alerts reach you' });
    const silence = choices.getByRole('group', { name: 'Camera silent, and back again' });
    // A Viewer is told of their camera's alerts, not of money or the team (the owner's).
    await expect(silence).toBeVisible();
    await expect(
      choices.getByRole('group', { name: 'Payment failed, service at risk' }),
    ).toHaveCount(0);
    await expect(choices.getByRole('group', { name: 'Team changes' })).toHaveCount(0);
    // A member's e-mails start off; silence is urgent by default (past quiet hours).
    await expect(silence.getByRole('checkbox', { name: 'E-mail', exact: true })).not.toBeChecked();
    await expect(silence.getByRole('checkbox', { name: /^Urgent/ })).toBeChecked();
    // Its camera's thresholds are linked, and nothing else of the account's.
    const thresholds = person.getByRole('link', { name: cameraName });
    await expect(thresholds).toHaveAttribute('href', cameraPath);

    await silence.getByRole('checkbox', { name: 'Push', exact: true }).check();
    await silence.getByRole('checkbox', { name: 'Text', exact: true }).check();
    await choices.getByRole('button', { name: 'Save notifications' }).click();
    await expect(person.getByText('Notifications saved')).toBeVisible();

    // The mobile number: a wrong one says why; the code comes by text.
    const numberForm = person.getByRole('form', { name: 'Mobile number' });
    await numberForm.getByRole('textbox', { name: 'Mobile number' }).fill('+33 6 12 34 56 78');
    await numberForm.getByRole('button', { name: 'Text me a code' }).click();
    await expect(
      numberForm.getByText('We can send text messages to UK mobile numbers only.', {
        exact: false,
      }),
    ).toBeVisible();
    await numberForm.getByRole('textbox', { name: 'Mobile number' }).fill(mobile);
    await numberForm.getByRole('button', { name: 'Text me a code' }).click();
    const [, code] = await waitForText(person, mobileE164, /Your Farmcam code is (\d{6})\./);
    const codeForm = person.getByRole('form', { name: 'Code from the text' });
    await expect(codeForm).toContainText(`We texted a code to ${mobile}`);
    // A wrong code counts a try.
    const wrong = code === '000000' ? '111111' : '000000';
    await codeForm.getByRole('textbox', { name: 'Six-digit code' }).fill(wrong);
    await codeForm.getByRole('button', { name: 'Check the code' }).click();
    await expect(codeForm.getByText('That is not the code we sent. 4 tries left.')).toBeVisible();
    await codeForm.getByRole('textbox', { name: 'Six-digit code' }).fill(code!);
    await codeForm.getByRole('button', { name: 'Check the code' }).click();
    await expect(person.getByText(`Texts go to ${mobile}.`)).toBeVisible();

    // Push on this browser: the browser's own question is answered (permission granted).
    await person.getByRole('button', { name: 'Turn on push on this device' }).click();
    await expect(person.getByText('Push is on for this device.')).toBeVisible();
    await expect(person.getByRole('list').filter({ hasText: '(this device)' })).toContainText(
      'Chrome',
    );

    // Gloved fingers: every control on the page is at least 44 px high on the phone.
    expect(await smallTargets(person)).toEqual([]);
    await screensAtBothWidths(person, testInfo, 'notifications');
    await person.setViewportSize(phoneViewport);

    // The service worker controls the page, as in the installed app.
    await person.evaluate(async () => {
      await navigator.serviceWorker.ready;
      if (!navigator.serviceWorker.controller) {
        await new Promise((resolve) =>
          navigator.serviceWorker.addEventListener('controllerchange', resolve, { once: true }),
        );
      }
    });

    // Stable yard goes silent (as if its power went 7 hours ago) and the watch runs.
    const since = new Date(Date.now() - 7 * 3_600_000).toISOString();
    expect((await page.request.post(silencePath, { data: { since } })).status()).toBe(200);
    expect((await page.request.post('/dev/camera-watch/run')).status()).toBe(200);

    // The push service got the server's push: signed with VAPID, decrypted with this device's keys.
    await expect
      .poll(
        () => pushService.received.filter((push) => push.endpoint === subscription.endpoint).length,
        {
          message: 'the silence push at the push service',
          timeout: 30_000,
        },
      )
      .toBe(1);
    expect(pushService.refused).toEqual([]);
    const push = pushService.received.find((item) => item.endpoint === subscription.endpoint)!;
    expect(push.claims.aud).toBe(pushService.origin);
    expect(push.urgency).toBe('high');
    const payload = JSON.parse(push.payload) as { title: string; body: string; path: string };
    expect(payload).toMatchObject({ title: `${cameraName} has gone silent`, path: cameraPath });

    // The same alert by text, with the camera's address.
    await waitForText(
      person,
      mobileE164,
      new RegExp(`^Farmcam: ${cameraName} has gone silent\\. .*${cameraPath}$`),
    );

    // Chromium's service worker receives the push and shows it.
    const cdp = await phone.context.newCDPSession(person);
    const registrations: { registrationId: string; scopeURL: string; isDeleted: boolean }[] = [];
    cdp.on('ServiceWorker.workerRegistrationUpdated', (event) =>
      registrations.push(...event.registrations),
    );
    await cdp.send('ServiceWorker.enable');
    await expect.poll(() => registrations.some((item) => !item.isDeleted)).toBe(true);
    const registration = registrations.find((item) => !item.isDeleted)!;
    const shown = () =>
      person.evaluate(async () => {
        const worker = await navigator.serviceWorker.ready;
        return (await worker.getNotifications()).map((notification) => ({
          title: notification.title,
          body: notification.body,
          data: notification.data as unknown,
        }));
      });
    // DevTools' delivery is the test's stand-in for the push service's, and on a loaded machine
    // it was once lost (a worker stopping for idleness as it came): it is made again until the
    // alert shows. The alert's tag keeps one notification however often it arrives.
    await expect(async () => {
      await cdp.send('ServiceWorker.deliverPushMessage', {
        origin: new URL(baseURL!).origin,
        registrationId: registration.registrationId,
        data: push.payload,
      });
      await expect
        .poll(shown, { message: 'the notification on show', timeout: 5_000 })
        .toEqual([{ title: payload.title, body: payload.body, data: { path: cameraPath } }]);
    }).toPass({ timeout: 20_000 });

    // A tap: the worker's notificationclick opens the camera in the portal's window.
    const worker =
      phone.context.serviceWorkers()[0] ?? (await phone.context.waitForEvent('serviceworker'));
    await worker.evaluate(async () => {
      // The worker's globals (this project's types are the page's, not a worker's).
      const scope = self as unknown as {
        registration: ServiceWorkerRegistration;
        dispatchEvent: (event: Event) => boolean;
        NotificationEvent: new (type: string, init: { notification: Notification }) => Event;
      };
      const [notification] = await scope.registration.getNotifications();
      scope.dispatchEvent(
        new scope.NotificationEvent('notificationclick', { notification: notification! }),
      );
    });
    await expect(person).toHaveURL(new RegExp(`${cameraPath}$`));
    await expect(person.getByRole('heading', { name: 'Camera details', level: 1 })).toBeVisible();
    await expect(person.getByText(cameraName, { exact: true }).first()).toBeVisible();
    await expect(
      person.getByRole('status').filter({ hasText: 'No data from this camera' }),
    ).toBeVisible();
    await expect.poll(shown).toEqual([]);
    await screensAtBothWidths(person, testInfo, 'notification-opened-camera');

    // The page shows the verified phone's count of today's texts.
    await person.goto('/notifications');
    await expect(person.getByText(`Texts go to ${mobile}. 1 of 10 sent today`)).toBeVisible();

    // The push service forgets this device (410): a test push removes it, and the page says so.
    pushService.answerWith(subscription.endpoint, 410);
    await person.getByRole('button', { name: 'Send a test push' }).click();
    await expect(person.getByText('Test push sent to your devices')).toBeVisible();
    const failures = person.getByRole('list').filter({ hasText: 'Test from Farmcam' });
    await expect(async () => {
      await person.reload();
      await expect(failures).toContainText(
        'no longer accepts notifications, so it was removed. Turn push on again on that device.',
        { timeout: 1000 },
      );
    }).toPass();
    await expect(person.getByRole('button', { name: 'Turn on push on this device' })).toBeVisible();

    // The phone replies STOP (from /dev/sms, as Twilio would pass it on): no more texts.
    await person.goto('/dev/sms');
    await person.getByLabel('From').selectOption(mobileE164);
    await person.getByLabel('Text').fill('STOP');
    await person.getByRole('button', { name: 'Send reply' }).click();
    await expect(person.getByText(`Reply from ${mobileE164}`)).toBeVisible();
    await person.goto('/notifications');
    await expect(
      person.getByRole('status').filter({ hasText: 'This phone replied STOP' }),
    ).toContainText('so we send it no texts. Reply START to one of our texts to get them again.');
    await expect(person.getByRole('button', { name: 'Send a test text' })).toBeDisabled();
    await screensAtBothWidths(person, testInfo, 'notifications-stopped-and-failed');
    // Only the browser's notes of the two refusals above: the French number, the wrong code.
    expect(phone.consoleErrors).toEqual([
      'Failed to load resource: the server responded with a status of 400 (Bad Request)',
      'Failed to load resource: the server responded with a status of 422 (Unprocessable Entity)',
    ]);
    expect(consoleErrors).toEqual([]);
  } finally {
    await page.request.delete(silencePath);
    await page.request.post('/dev/camera-watch/run');
    await phone.context.close();
    await pushService.close();
  }
});
