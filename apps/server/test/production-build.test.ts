/**
 * The production build (docs/decisions/061-production-mode.md): the bundle that
 * `npm run start:prod` runs starts on plain node from its folder alone, finds the files it reads
 * at run time (migrations first), and serves no developer routes.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

const serverRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const repositoryRoot = path.resolve(serverRoot, '../..');

// One PGlite start in a child process; the same on PostgreSQL runs, so run it once.
describe.skipIf(process.env.TEST_DATABASE_URL)('production build', () => {
  let buildFolder = '';
  let child: ChildProcess | undefined;
  let output = '';
  let baseUrl = '';

  beforeAll(async () => {
    // Inside the repository, so the bundle's external packages resolve from node_modules.
    const cacheFolder = path.join(repositoryRoot, 'node_modules', '.cache');
    fs.mkdirSync(cacheFolder, { recursive: true });
    buildFolder = fs.mkdtempSync(path.join(cacheFolder, 'build-'));
    const build = spawnSync(
      process.execPath,
      [path.join(serverRoot, 'scripts/build.mjs'), buildFolder],
      {
        encoding: 'utf8',
      },
    );
    expect(build.status, build.stderr).toBe(0);

    child = spawn(process.execPath, [path.join(buildFolder, 'server.js')], {
      cwd: buildFolder,
      env: {
        PATH: process.env.PATH,
        NODE_ENV: 'production',
        HOST: '127.0.0.1',
        PORT: '0',
        PUBLIC_URL: 'https://portal.example.com',
        // Nothing is sent in this test; the transport connects only to send.
        SMTP_URL: 'smtp://mailer:SMTPSECRET0123@127.0.0.1:9',
        BILLING: 'local',
        DATA_DIR: path.join(buildFolder, 'data'),
        // No load balancer watches this process: stop without production's drain.
        SHUTDOWN_GRACE_SECONDS: '0',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    baseUrl = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`No start in 50 s:\n${output}`)), 50_000);
      const look = () => {
        const address = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
        if (address) {
          clearTimeout(timer);
          resolve(address);
        }
      };
      child!.stdout!.on('data', look);
      child!.once('exit', (code) => reject(new Error(`Exited with ${code}:\n${output}`)));
    });
  }, 60_000);

  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    if (buildFolder) fs.rmSync(buildFolder, { recursive: true, force: true });
  });

  it('starts with PUBLIC_URL, SMTP_URL and BILLING alone and serves the API from its database', async () => {
    const health = await fetch(`${baseUrl}/api/healthz`);
    expect(await health.json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${baseUrl}/api/readyz`);
    expect(ready.status, 'migrated database and job queue').toBe(200);
    const plans = await fetch(`${baseUrl}/api/activation/pricing-tables/local_uk`);
    expect(plans.status).toBe(200);
    const embedScript = await fetch(`${baseUrl}/embed/livestream-embed.js`);
    expect(embedScript.status).toBe(200);
  });

  it('prints JSON lines only: no banner, no warning (docs/decisions/106)', () => {
    const lines = output.split('\n').filter(Boolean);
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
    expect(output).toContain('"msg":"Farmcam Portal is running at https://portal.example.com"');
  });

  it('serves no developer routes', async () => {
    for (const url of ['/dev/mail', '/dev/outbox', '/api/docs', '/billing-engine/test-clock']) {
      expect((await fetch(`${baseUrl}${url}`)).status, url).toBe(404);
    }
  });

  it('prints and logs no secret', async () => {
    await fetch(`${baseUrl}/api/auth/login?token=LOGINTOKEN0123456789`);
    await fetch(`${baseUrl}/login/PAGETOKEN0123456789`);
    await vi.waitFor(() => expect(output).toContain('"url":"/login/[redacted]"'));
    expect(output).not.toMatch(/LOGINTOKEN|PAGETOKEN|SMTPSECRET|password [A-Za-z0-9]{12}/);
  });
});
