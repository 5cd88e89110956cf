import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defineConfig, devices } from '@playwright/test';
import { selfSignedCertificate } from '../apps/server/test/fakes/fake-push-service.ts';

/**
 * The certificate of the journeys' own push service (18-notifications): push services speak
 * HTTPS only, so the server trusts this one (NODE_EXTRA_CA_CERTS) and the journey serves with
 * it. Made once per run; the workers inherit the folder through the environment.
 */
process.env.E2E_PUSH_TLS_DIR ??= (() => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'farmcam-e2e-push-'));
  const made = selfSignedCertificate();
  fs.writeFileSync(path.join(folder, 'key.pem'), made.key);
  fs.writeFileSync(path.join(folder, 'cert.pem'), made.cert);
  return folder;
})();
const pushTlsDir = process.env.E2E_PUSH_TLS_DIR;
export const pushServiceTls = {
  key: fs.readFileSync(path.join(pushTlsDir, 'key.pem'), 'utf8'),
  cert: fs.readFileSync(path.join(pushTlsDir, 'cert.pem'), 'utf8'),
};
/** Debian's Chromium as every journey launches it (a journey that needs its own browser too). */
export const chromium = {
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
};

export default defineConfig({
  testDir: './tests',
  // One seeded database for the run; each spec file's server starts from a copy (decision 150).
  globalSetup: './global-setup.ts',
  outputDir: './test-results',
  // CI runs on two cores with two browsers and two servers at once: what takes 20 s here can
  // take a minute there, so a test gets 2 minutes and a wait 15 s (a missing element still fails).
  timeout: process.env.CI ? 120_000 : 60_000,
  expect: { timeout: process.env.CI ? 15_000 : 10_000 },
  // Each spec file has a server and database of its own (fixtures/server.ts, decision 150), so
  // the files share out over the workers in any order; the tests of one file run in order.
  fullyParallel: false,
  workers: Number(process.env.E2E_WORKERS ?? 2),
  retries: process.env.CI ? 1 : 0,
  use: {
    // Recording a trace for every test took a fifth of the journeys' time (DOM snapshots and
    // a screencast at each step). CI, which retries once, records the retry: a failure keeps its
    // screenshot and page snapshot, and a second failure its whole trace (decision 150).
    trace: process.env.CI ? 'on-first-retry' : 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: chromium,
  },
  projects: [
    {
      name: 'desktop',
      use: {
        ...devices['Desktop Chrome'],
        viewport: { width: 1280, height: 800 },
        launchOptions: chromium,
      },
    },
  ],
});
