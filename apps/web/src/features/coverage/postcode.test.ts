import { describe, expect, it } from 'vitest';
import { formatPostcode, normalisePostcode } from './postcode.ts';

describe('postcode box rules (docs/requirements.md#input-rules)', () => {
  it('upper-cases and removes everything but letters and digits', () => {
    expect(normalisePostcode('ex36 3lh')).toBe('EX363LH');
    expect(normalisePostcode('Sw1a-1Aa!')).toBe('SW1A1AA');
    expect(normalisePostcode(' . ')).toBe('');
  });

  it('writes the inward code after a space for display', () => {
    expect(formatPostcode('EX363LH')).toBe('EX36 3LH');
    expect(formatPostcode('M11AE')).toBe('M1 1AE');
  });
});
