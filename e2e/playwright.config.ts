import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { defineConfig, devices } from '@playwright/test';

/** A port nothing listens on right now, chosen by the operating system. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

// A free port rather than a fixed one, so the journeys run whatever else listens on this machine.
// Playwright imports this file again in every worker (and the specs import it): the environment,
// which the workers inherit, carries the first choice to them all. E2E_PORT may also be set.
process.env.E2E_PORT ??= String(await freePort());
const port = Number(process.env.E2E_PORT);
export const baseURL = `http://localhost:${port}`;
/** A fresh embedded database per run, so journeys start from the demo data. */
const dataDir = path.join(os.tmpdir(), `farmcam-e2e-${process.pid}`);
export const staffPasswords = { admin: 'e2e-admin-password', team: 'e2e-team-password' };

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
  outputDir: './test-results',
  timeout: 60_000,
  expect: { timeout: 10_000 },
  // One server and one database for the run; files run in name order, so the journeys that
  // only read the demo data (01-04) come before those that change it (05-07).
  fullyParallel: false,
  workers: 1,
  retries: process.env.CI ? 1 : 0,
  use: {
    baseURL,
    trace: 'retain-on-failure',
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
  webServer: {
    command: `rm -rf ${dataDir} && node --import tsx ../apps/server/src/server.ts`,
    url: `${baseURL}/api/healthz`,
    timeout: 120_000,
    reuseExistingServer: false,
    stdout: 'ignore',
    stderr: 'pipe',
    env: {
      PORT: String(port),
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      PUBLIC_URL: baseURL,
      // Absolute: the server resolves a relative path from where npm was started (INIT_CWD).
      WEB_DIST_DIR:
        process.env.E2E_WEB_DIST_DIR ?? path.resolve(import.meta.dirname, '../apps/web/dist'),
      // Journeys send X-Forwarded-For so per-IP limits see one client per test: the browser on
      // the loopback address stands in for a proxy (never "trust everyone", decision 063).
      TRUST_PROXY: 'loopback',
      // Every spec signs demo@example.com in; the per-address limit is proven by the server tests.
      LOGIN_LINKS_PER_EMAIL: '200',
      // The demo staff accounts' first passwords, taken when the fresh database is seeded
      // (development only; production refuses them and staff come from `npm run staff`).
      ADMIN_PASSWORD: staffPasswords.admin,
      TEAM_PASSWORD: staffPasswords.team,
    },
  },
});
