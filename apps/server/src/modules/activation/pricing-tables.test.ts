import { describe, expect, it } from 'vitest';
import { testConfig } from '../../config/config.ts';
import { createPricingTables } from './pricing-tables.ts';

describe('createPricingTables', () => {
  const tables = createPricingTables(testConfig());

  it('describes our own tables', () => {
    expect(tables.describeLocal('local_uk_solar')).toEqual({ region: 'uk', isSolar: true });
  });

  it('knows no table named after an Object.prototype member (a fuzz find: 500 before)', () => {
    for (const id of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']) {
      expect(tables.describeLocal(id)).toBeUndefined();
    }
  });
});
