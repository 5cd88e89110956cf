import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../config/config.ts';
import { createCoverageProvider } from './create-coverage-provider.ts';

describe('coverage configuration', () => {
  it('uses the bundled demo data by default', () => {
    const config = loadConfig({});
    expect(config.coverage).toEqual({ mode: 'bundled' });
    expect(createCoverageProvider(config.coverage).source).toBe('bundled');
  });

  it('uses Ofcom’s API host by default with COVERAGE=ofcom and a key', () => {
    const config = loadConfig({ COVERAGE: 'ofcom', OFCOM_API_KEY: 'key' });
    expect(config.coverage).toEqual({
      mode: 'ofcom',
      apiUrl: 'https://api-proxy.ofcom.org.uk',
      apiKey: 'key',
    });
    const provider = createCoverageProvider(config.coverage);
    expect(provider.source).toBe('ofcom');
    expect(provider.isDemoData).toBe(false);
  });

  it('takes another host from OFCOM_API_URL', () => {
    const config = loadConfig({
      COVERAGE: 'ofcom',
      OFCOM_API_KEY: 'key',
      OFCOM_API_URL: 'http://127.0.0.1:4010/',
    });
    expect(config.coverage).toMatchObject({ apiUrl: 'http://127.0.0.1:4010' });
  });

  it('stops with a clear problem when COVERAGE=ofcom has no key, or COVERAGE is unknown', () => {
    expect(() => loadConfig({ COVERAGE: 'ofcom' })).toThrow(
      'OFCOM_API_KEY: required when COVERAGE=ofcom',
    );
    expect(() => loadConfig({ COVERAGE: 'guess' })).toThrow(ConfigError);
  });
});
