import { describe, expect, it } from 'vitest';
import { sessionFingerprint } from './keep-on-device.ts';
import { isPersistedQueryKey } from './last-known-keys.ts';

describe('what the device keeps', () => {
  it('keeps the camera list, camera details, invoices and who is signed in, nothing else', () => {
    for (const key of [
      ['cameras', 'plans'],
      ['cameras', 'sim-info', '8944'],
      ['cameras', 'data-usage', '8944', '2026-11-01', '2026-11-30'],
      ['cameras', 'router-info', '8944'],
      ['invoices', 'cus_1'],
      ['auth', 'user-data'],
    ]) {
      expect(isPersistedQueryKey(key)).toBe(true);
    }
    for (const key of [['cameras', 'timelapses', '8944'], ['team'], ['livestreams'], ['cameras']]) {
      expect(isPersistedQueryKey(key)).toBe(false);
    }
  });

  it('tells sessions apart without keeping the token', () => {
    const token = 'a'.repeat(43);
    expect(sessionFingerprint(token)).toBe(sessionFingerprint(token));
    expect(sessionFingerprint(token)).not.toBe(sessionFingerprint(`${'a'.repeat(42)}b`));
    expect(sessionFingerprint(token)).not.toContain('aaaa');
  });
});
