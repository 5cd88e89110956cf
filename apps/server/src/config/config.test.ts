import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

describe('loadConfig', () => {
  it('has embedded defaults: port 3000, ./data, outbox mail, demo data', () => {
    const config = loadConfig({ INIT_CWD: '/srv/portal' });
    expect(config).toMatchObject({
      port: 3000,
      publicUrl: 'http://localhost:3000',
      dataDir: path.resolve('/srv/portal', 'data'),
      databaseUrl: undefined,
      mail: { mode: 'outbox' },
      isDemoDataEnabled: true,
    });
  });

  it('turns demo data off by default on PostgreSQL', () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://localhost/portal' });
    expect(config.isDemoDataEnabled).toBe(false);
    expect(
      loadConfig({ DATABASE_URL: 'postgres://x/y', DEMO_DATA: 'true' }).isDemoDataEnabled,
    ).toBe(true);
  });

  it('runs every role in one process by default; split roles need PostgreSQL', () => {
    expect(loadConfig({}).role).toBe('all');
    const worker = loadConfig({ ROLE: 'worker', DATABASE_URL: 'postgres://x/y' });
    expect(worker.role).toBe('worker');
    expect(() => loadConfig({ ROLE: 'api' })).toThrow(
      /ROLE: api needs DATABASE_URL .* the embedded database runs only ROLE=all/,
    );
    expect(() => loadConfig({ ROLE: 'scheduler', DATABASE_URL: 'postgres://x/y' })).toThrow(/ROLE/);
  });

  it('drains for 15 s in production before closing (longer than the proxy takes to notice), at once elsewhere', () => {
    expect(loadConfig({}).shutdownGraceSeconds).toBe(0);
    expect(loadConfig({ SHUTDOWN_GRACE_SECONDS: '2.5' }).shutdownGraceSeconds).toBe(2.5);
    expect(
      loadConfig({
        NODE_ENV: 'production',
        PUBLIC_URL: 'https://portal.example.com',
        SMTP_URL: 'smtp://localhost:2525',
        BILLING: 'local',
      }).shutdownGraceSeconds,
    ).toBe(15);
  });

  it('lists every problem at once', () => {
    try {
      loadConfig({ PORT: 'abc', MAIL: 'pigeon', DATABASE_URL: 'mysql://x' });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).problems).toHaveLength(3);
      expect((error as ConfigError).message).toMatch(/PORT/);
      expect((error as ConfigError).message).toMatch(/DATABASE_URL must be a postgres/);
    }
  });

  it('requires SMTP_URL for SMTP mail', () => {
    expect(() => loadConfig({ MAIL: 'smtp' })).toThrow(/SMTP_URL: required when MAIL=smtp/);
    expect(loadConfig({ MAIL: 'smtp', SMTP_URL: 'smtp://localhost:2525' }).mail).toMatchObject({
      mode: 'smtp',
      url: 'smtp://localhost:2525',
    });
  });

  it('uses the local SIM platform unless told otherwise, and needs URL and key for HTTP', () => {
    expect(loadConfig({}).connectivity).toEqual({ mode: 'local' });
    expect(loadConfig({}).plansCacheSeconds).toBe(30);
    expect(() => loadConfig({ CONNECTIVITY: 'http' })).toThrow(
      /CONNECTIVITY_URL: required when CONNECTIVITY=http[\s\S]*CONNECTIVITY_API_KEY: required/,
    );
    expect(
      loadConfig({
        CONNECTIVITY: 'http',
        CONNECTIVITY_URL: 'https://sims.example.net/api/',
        CONNECTIVITY_API_KEY: 'key',
      }).connectivity,
    ).toEqual({ mode: 'http', url: 'https://sims.example.net/api', apiKey: 'key' });
    expect(() => loadConfig({ PLANS_CACHE_SECONDS: '-1' })).toThrow(/PLANS_CACHE_SECONDS/);
  });

  it('keeps the development conveniences outside production: outbox, test clock, API docs', () => {
    const config = loadConfig({});
    expect(config.nodeEnv).toBe('development');
    expect(config.billing).toEqual({ mode: 'local', isTestClockEnabled: true });
    expect(config.isApiDocsEnabled).toBe(true);
    expect(loadConfig({ API_DOCS: 'false' }).isApiDocsEnabled).toBe(false);
    expect(loadConfig({ BILLING_TEST_CLOCK: 'false' }).billing).toEqual({
      mode: 'local',
      isTestClockEnabled: false,
    });
  });

  describe('in production', () => {
    const production = {
      NODE_ENV: 'production',
      PUBLIC_URL: 'https://portal.example.com',
      SMTP_URL: 'smtps://user:secret@smtp.example.com:465',
      BILLING: 'local',
      SUPPLIER_NAME: 'Hill Farm Cameras Ltd',
      SUPPLIER_ADDRESS: '2 Mill Lane, Ashby, AB1 2CD',
      SUPPLIER_VAT_NUMBER: 'GB123456789',
    };

    it('comes up with PUBLIC_URL, SMTP_URL and the supplier alone, safe by default', () => {
      const config = loadConfig(production);
      expect(config).toMatchObject({
        nodeEnv: 'production',
        publicUrl: 'https://portal.example.com',
        mail: { mode: 'smtp', url: production.SMTP_URL },
        isDemoDataEnabled: false,
        isApiDocsEnabled: false,
        billing: { mode: 'local', isTestClockEnabled: false },
        connectivity: { mode: 'local' },
        storage: { mode: 'fs' },
      });
    });

    it('seeds demo data and serves the API docs only when asked to', () => {
      expect(loadConfig({ ...production, DEMO_DATA: 'true' }).isDemoDataEnabled).toBe(true);
      expect(loadConfig({ ...production, API_DOCS: 'true' }).isApiDocsEnabled).toBe(true);
      expect(loadConfig({ ...production, BILLING_TEST_CLOCK: 'false' }).billing).toMatchObject({
        isTestClockEnabled: false,
      });
    });

    it('puts the configured supplier on invoices', () => {
      expect(loadConfig(production).supplier).toEqual({
        name: 'Hill Farm Cameras Ltd',
        addressLines: ['2 Mill Lane', 'Ashby', 'AB1 2CD'],
        vatNumber: 'GB123456789',
        isConfigured: true,
      });
      expect(loadConfig({ ...production, VAT_RATE: '23' }).invoicing).toEqual({
        numberPrefix: 'FC',
        vatRateBasisPoints: 2300,
      });
      // Stripe prints its own invoices: no supplier needed then.
      expect(() =>
        loadConfig({
          NODE_ENV: 'production',
          PUBLIC_URL: production.PUBLIC_URL,
          SMTP_URL: production.SMTP_URL,
          BILLING: 'stripe',
          STRIPE_SECRET_KEY: 'sk_test_x',
          STRIPE_WEBHOOK_SECRET: 'whsec_x',
        }),
      ).not.toThrow();
    });

    it('needs only PUBLIC_URL, SMTP_URL and BILLING, listed together', () => {
      try {
        loadConfig({ NODE_ENV: 'production' });
        expect.unreachable();
      } catch (error) {
        expect((error as ConfigError).problems).toEqual([
          'PUBLIC_URL: required in production (the address e-mailed sign-in links open)',
          'SMTP_URL: required in production (customers sign in with e-mailed links)',
          'BILLING: required in production: stripe to take payments, or local for a site that takes none (its forms accept only test cards, docs/decisions/172)',
        ]);
      }
    });

    it('starts without the supplier, but never prints the demo stand-ins on invoices', () => {
      const config = loadConfig({
        NODE_ENV: 'production',
        PUBLIC_URL: 'https://portal.example.com',
        SMTP_URL: 'smtp://mail.example.com:587',
        BILLING: 'local',
      });
      expect(config.supplier.isConfigured).toBe(false);
      expect(config.supplier.name).not.toMatch(/demo/i);
      expect(config.supplier.vatNumber).not.toMatch(/demo/i);
      expect(config.supplier.addressLines).toEqual([]);
    });

    it('refuses the mail outbox and the billing test clock with a reason', () => {
      expect(() => loadConfig({ ...production, MAIL: 'outbox' })).toThrow(
        /MAIL: the outbox cannot be used in production \(anyone could read sign-in links\); set MAIL=smtp/,
      );
      expect(() => loadConfig({ ...production, BILLING_TEST_CLOCK: 'true' })).toThrow(
        /BILLING_TEST_CLOCK: the test clock moves billing time for every customer and cannot be turned on in production/,
      );
    });

    it("refuses the example file's change-me placeholders, naming each variable", () => {
      try {
        loadConfig({
          ...production,
          SMTP_URL: 'smtps://portal:change-me@smtp.example.com:465',
          METRICS_TOKEN: 'CHANGE-ME-to-the-output-of-openssl-rand-hex-32',
        });
        expect.unreachable();
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        expect((error as ConfigError).problems).toEqual([
          "METRICS_TOKEN: still the example's placeholder (change-me); put your own value in",
          "SMTP_URL: still the example's placeholder (change-me); put your own value in",
        ]);
      }
      // Only production refuses: development is for trying things.
      expect(loadConfig({ CONNECTIVITY_API_KEY: 'change-me' }).nodeEnv).toBe('development');
    });

    it('keeps secrets out of its own error messages', () => {
      try {
        loadConfig({ ...production, MAIL: 'outbox', DATABASE_URL: 'mysql://root:hunter2@db/x' });
        expect.unreachable();
      } catch (error) {
        expect((error as ConfigError).message).not.toMatch(/secret|hunter2/);
      }
    });
  });

  it('logs JSON in production and tests, readable lines in development, unless LOG_FORMAT says', () => {
    expect(loadConfig({}).logFormat).toBe('pretty');
    expect(loadConfig({ NODE_ENV: 'test' }).logFormat).toBe('json');
    const production = {
      NODE_ENV: 'production',
      PUBLIC_URL: 'https://portal.example.com',
      SMTP_URL: 'smtp://mail.example.com:587',
      BILLING: 'local',
    };
    expect(loadConfig(production).logFormat).toBe('json');
    expect(loadConfig({ ...production, LOG_FORMAT: 'pretty' }).logFormat).toBe('pretty');
    expect(loadConfig({ LOG_FORMAT: 'json' }).logFormat).toBe('json');
    expect(() => loadConfig({ LOG_FORMAT: 'colours' })).toThrow(/LOG_FORMAT/);
    // A refused configuration is written in the format the operator's log expects.
    try {
      loadConfig({ NODE_ENV: 'production', PORT: 'abc' });
      expect.unreachable();
    } catch (error) {
      expect((error as ConfigError).logFormat).toBe('json');
    }
  });

  it('drops a trailing slash from PUBLIC_URL', () => {
    expect(loadConfig({ PUBLIC_URL: 'https://portal.example.com/' }).publicUrl).toBe(
      'https://portal.example.com',
    );
  });
});
