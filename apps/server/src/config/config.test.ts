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

  it('drops a trailing slash from PUBLIC_URL', () => {
    expect(loadConfig({ PUBLIC_URL: 'https://portal.example.com/' }).publicUrl).toBe(
      'https://portal.example.com',
    );
  });
});
