import { staffPasswords } from '../fixtures/server.ts';
import { expect, expectAccessible, test, waitForLoginLink } from '../fixtures/portal.ts';

test.describe('customer sign-in by e-mailed link', () => {
  test('the sign-in page is in the HTML of / before any script runs; other pages are not', async ({
    browser,
  }) => {
    // docs/decisions/083: / is prerendered, so it paints before the JavaScript has arrived.
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto('/');
    await expect(page.getByRole('heading', { name: 'Sign in', level: 1 })).toBeVisible();
    await expect(page.getByRole('textbox', { name: 'E-mail address' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Send login link' })).toBeVisible();
    // A deep link never shows the visitor's sign-in form before the app decides.
    await page.goto('/dashboard');
    await expect(page.getByRole('button', { name: 'Send login link' })).toHaveCount(0);
    await context.close();
  });

  test('with JavaScript off the form posts to the server, which sends the link and says so', async ({
    browser,
    extraHTTPHeaders,
  }, testInfo) => {
    // Decision 116: the sign-in form is a real form (POST), answered by a page.
    const context = await browser.newContext({
      javaScriptEnabled: false,
      viewport: { width: 390, height: 844 },
      extraHTTPHeaders,
    });
    const page = await context.newPage();
    const posts: string[] = [];
    page.on('request', (request) => {
      if (request.isNavigationRequest()) posts.push(`${request.method()} ${request.url()}`);
    });
    await page.goto('/');
    const requestedAt = new Date(Date.now() - 1000);
    await page.getByRole('textbox', { name: 'E-mail address' }).fill('demo@example.com');
    await page.getByRole('button', { name: 'Send login link' }).click();
    await expect(page.getByRole('status')).toHaveText('Login link sent, please check your e-mail');
    expect(new URL(page.url()).pathname).toBe('/login-link');
    expect(page.url()).not.toContain('demo');
    expect(posts.at(-1)).toMatch(/^POST .*\/login-link$/);
    await page.screenshot({ path: testInfo.outputPath('no-script-sent-390.png'), fullPage: true });
    const link = await waitForLoginLink(page.request, 'demo@example.com', requestedAt);
    expect(link).toContain('/login/');

    // A mistyped address is said on the page, with what was typed kept in the field.
    await page.getByRole('textbox', { name: 'E-mail address' }).fill('not an address');
    await page.getByRole('button', { name: 'Send login link' }).click();
    await expect(page.getByRole('alert')).toHaveText('Please enter a valid e-mail address.');
    await expect(page.getByRole('textbox', { name: 'E-mail address' })).toHaveValue(
      'not an address',
    );
    await page.screenshot({ path: testInfo.outputPath('no-script-error-390.png'), fullPage: true });
    await context.close();
  });

  test('on a slow phone, what is typed while the app is still loading is sent, once, never in the URL', async ({
    page,
  }, testInfo) => {
    await page.setViewportSize({ width: 390, height: 844 });
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 6 });
    // Hold the app's module script back so the visitor types into the prerendered page.
    const hold = () => {
      let release: () => void = () => undefined;
      const held = new Promise<void>((resolve) => (release = resolve));
      return { held, release: () => release() };
    };
    let script = hold();
    await page.route(/\/assets\/index-[^/]+\.js$/, async (route) => {
      await script.held;
      await route.continue();
    });
    const loginRequests: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && /request-login|login-link/.test(request.url())) {
        loginRequests.push(`${request.method()} ${request.url()} ${request.postData() ?? ''}`);
      }
    });

    // Typed and sent before the app has started: the form posts to the server, which answers.
    // (The load event waits for the held script.)
    await page.goto('/', { waitUntil: 'commit' });
    let requestedAt = new Date(Date.now() - 1000);
    await page.getByRole('textbox', { name: 'E-mail address' }).fill('demo@example.com');
    await page.getByRole('button', { name: 'Send login link' }).click();
    await expect(page.getByRole('status')).toHaveText('Login link sent, please check your e-mail');
    expect(new URL(page.url()).search).toBe('');
    expect(loginRequests).toEqual([
      expect.stringMatching(/^POST .*\/login-link email=demo%40example\.com$/),
    ]);
    // The server's page, checked here since axe needs JavaScript in the page.
    await expectAccessible(page);
    await page.screenshot({
      path: testInfo.outputPath('held-script-sent-390.png'),
      fullPage: true,
    });
    await waitForLoginLink(page.request, 'demo@example.com', requestedAt);
    script.release();

    // Typed before the app started and sent after it took the page over: the app sends it.
    script = hold();
    loginRequests.length = 0;
    await page.goto('/', { waitUntil: 'commit' });
    const field = page.getByRole('textbox', { name: 'E-mail address' });
    await field.fill('second@example.com');
    await field.evaluate((element) => element.setAttribute('data-typed-before-start', 'yes'));
    requestedAt = new Date(Date.now() - 1000);
    script.release();
    // The frame sets the document's title once the app has rendered.
    await expect(page).toHaveTitle('Sign in · Farmcam Portal');
    // The app took the very same field over (hydration), with what was typed in it.
    await expect(field).toHaveAttribute('data-typed-before-start', 'yes');
    await expect(field).toHaveValue('second@example.com');
    await page.getByRole('button', { name: 'Send login link' }).click();
    await expect(page.getByText('Login link sent, please check your e-mail')).toBeVisible();
    expect(new URL(page.url()).pathname).toBe('/');
    expect(new URL(page.url()).search).toBe('');
    expect(loginRequests).toEqual([
      expect.stringMatching(
        /^POST .*\/api\/auth\/request-login \{"email":"second@example\.com"\}$/,
      ),
    ]);
    await waitForLoginLink(page.request, 'second@example.com', requestedAt);
    await page.screenshot({ path: testInfo.outputPath('held-script-app-390.png'), fullPage: true });
  });

  test('signs in from the outbox link, shows the frame, and logs out', async ({
    page,
    signIn,
    consoleErrors,
  }, testInfo) => {
    await page.goto('/');
    await expect(page.getByRole('button', { name: 'Send login link' })).toBeVisible();
    await expectAccessible(page);
    await page.screenshot({ path: testInfo.outputPath('login-1280.png'), fullPage: true });

    await signIn('demo@example.com');
    await expect(page.getByText('Login successful')).toBeVisible();
    const navigation = page.getByRole('navigation', { name: 'Main' });
    await expect(navigation.getByRole('link', { name: 'Account' })).toBeVisible();
    await expect(navigation.getByRole('link', { name: /Livestreaming/ })).toContainText('NEW');
    await expect(navigation.getByRole('link', { name: /company website/i })).toHaveAttribute(
      'target',
      '_blank',
    );
    await expectAccessible(page);
    await page.screenshot({ path: testInfo.outputPath('dashboard-1280.png'), fullPage: true });

    // The token survives a reload (restored from local storage).
    await page.reload();
    await expect(page).toHaveURL(/\/dashboard$/);
    await expect(navigation.getByRole('link', { name: 'Account' })).toBeVisible();

    // The start screen offers the dashboard while signed in.
    await page.goto('/');
    await expect(page.getByRole('link', { name: 'Go to dashboard' })).toBeVisible();

    await page.goto('/dashboard');
    await navigation.getByRole('button', { name: 'Logout' }).click();
    await expect(page).toHaveURL(/\/$/);
    await expect(page.getByRole('button', { name: 'Send login link' })).toBeVisible();
    expect(await page.evaluate(() => localStorage.getItem('token'))).toBeNull();
    await page.goto('/dashboard');
    await expect(page).toHaveURL(/\/$/);
    expect(consoleErrors).toEqual([]);
  });

  test('the frame uses a slide-in menu on a phone', async ({ page, signIn }, testInfo) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto('/');
    await expectAccessible(page);
    await page.screenshot({ path: testInfo.outputPath('login-390.png'), fullPage: true });
    await signIn('demo@example.com');
    await expect(page.getByRole('navigation', { name: 'Main' })).toBeHidden();
    const menuButton = page.getByRole('button', { name: 'Menu' });
    await menuButton.click();
    const menu = page.getByRole('navigation', { name: 'Main menu' });
    await expect(menu.getByRole('link', { name: 'Account' })).toBeVisible();
    await expectAccessible(page);
    await page.screenshot({ path: testInfo.outputPath('menu-390.png'), fullPage: true });
    await page.keyboard.press('Escape');
    await expect(menu).toBeHidden();
    await page.screenshot({ path: testInfo.outputPath('dashboard-390.png'), fullPage: true });
  });

  test('a used link sends the visitor back to sign in with the reason', async ({
    page,
    signIn,
  }) => {
    const requestedAt = new Date(Date.now() - 1000);
    await page.goto('/');
    await page.getByLabel('E-mail address').fill('second@example.com');
    await page.getByRole('button', { name: 'Send login link' }).click();
    const link = await waitForLoginLink(page.request, 'second@example.com', requestedAt);
    await page.goto(link);
    await expect(page).toHaveURL(/\/dashboard$/);
    await page.evaluate(() => localStorage.clear());

    await page.goto(link);
    await expect(
      page.getByText('This login link has already been used. Please request a new one.'),
    ).toBeVisible();
    await expect(page).toHaveURL(/\/$/);
    void signIn;
  });

  test('a made-up link is refused', async ({ page }) => {
    await page.goto(`/login/${'x'.repeat(43)}`);
    await expect(
      page.getByText('This login link is not valid. Please request a new one.'),
    ).toBeVisible();
    await expect(page).toHaveURL(/\/$/);
  });

  test('unknown paths show the not-found page', async ({ page }) => {
    await page.goto('/no/such/page');
    await expect(
      page.getByText('Sorry, the page you are looking for does not exist.'),
    ).toBeVisible();
    await page
      .getByRole('link', { name: /home|sign in|back/i })
      .first()
      .click();
    await expect(page).toHaveURL(/\/$/);
    await expectAccessible(page);
  });
});

test.describe('staff', () => {
  test('shows the error for a wrong password and requires both fields', async ({ page }) => {
    await page.goto('/team-login');
    await page.getByRole('button', { name: /sign in/i }).click();
    await expect(page.getByText('Please enter both email and password')).toBeVisible();
    await page.getByLabel('E-mail address').fill('admin@example.com');
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: /sign in/i }).click();
    await expect(page.getByText('Incorrect email or password')).toBeVisible();
    expect(await page.evaluate(() => localStorage.getItem('token'))).toBeNull();
    await expectAccessible(page);
    await page.getByRole('link', { name: 'Back to Magic Link Login' }).click();
    await expect(page).toHaveURL(/\/$/);
  });

  test('opens a customer portal with a banner and returns to the staff area', async ({
    page,
  }, testInfo) => {
    await page.goto('/team-login');
    await page.getByLabel('E-mail address').fill('team@example.com');
    await page.getByLabel('Password').fill(staffPasswords.team);
    await page.getByRole('button', { name: /sign in/i }).click();
    await expect(page).toHaveURL(/\/staff$/);
    await page.getByLabel('Search customers').fill('demo@');
    const row = page.getByRole('row', { name: /demo@example\.com/ });
    await expect(row).toBeVisible();
    await expectAccessible(page);
    await page.screenshot({ path: testInfo.outputPath('staff-1280.png'), fullPage: true });

    // Staff outside a portal cannot reach customer pages.
    await row.getByRole('button', { name: /Open portal as this customer/ }).click();
    await expect(page).toHaveURL(/\/dashboard$/);
    const banner = page.getByRole('region', { name: 'Staff view' });
    await expect(banner).toContainText('demo@example.com');
    await expect(banner).toContainText('team@example.com');
    await expectAccessible(page);
    await page.screenshot({ path: testInfo.outputPath('staff-portal-1280.png'), fullPage: true });

    await banner.getByRole('button', { name: /Back to staff/ }).click();
    await expect(page).toHaveURL(/\/staff$/);
    await expect(page.getByRole('region', { name: 'Staff view' })).toBeHidden();
  });
});
